/**
 * What a request header parses to, remembered per distinct part read: clients send a handful of
 * distinct values of a header such as Accept-Encoding, so each is parsed once and then looked up.
 * Only the header's first `characters` are read, and at most `entries` are kept (all forgotten
 * when full), so that neither a long header nor many distinct ones cost more than a short one.
 */
export class HeaderMemo<Parsed> {
  readonly #parsed = new Map<string, Parsed>();

  constructor(
    private readonly characters: number,
    private readonly entries: number,
    private readonly parse: (read: string) => Parsed,
  ) {}

  get(header: string): Parsed {
    const read = header.length > this.characters ? header.slice(0, this.characters) : header;
    const known = this.#parsed.get(read);
    if (known !== undefined) return known;
    const parsed = this.parse(read);
    if (this.#parsed.size >= this.entries) this.#parsed.clear();
    this.#parsed.set(read, parsed);
    return parsed;
  }
}
