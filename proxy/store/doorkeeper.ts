/**
 * A cache's admission: an entry is kept only from the second time it is asked for within the last
 * `window` distinct ETags. Traffic spread over a whole build (postal codes and neighbourhoods at
 * random, each asked once in a long while) then costs no cache churn (no entries made only to be
 * pushed out, promoted by the garbage collector on their way), while any hot set is cached from
 * its second request on. The page cache, shared by every worker, keeps the rest.
 *
 * A bitmap of eight bits per ETag of the window, cleared once `window` ETags have been marked: a
 * key seen once more within that window is admitted. An ETag is 27 base64url characters of
 * SHA-256 (contract/manifest.ts), so its first characters are already spread evenly and index the
 * bitmap as they are, with no hashing. Two ETags that share a bit only let the second in early,
 * never answer anything: the cache itself still compares whole ETags.
 */

/** base64url's 64 characters, each to its 6-bit value; anything else to 0. */
const sextets = new Uint8Array(128);
for (const [value, character] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].entries()) sextets[character.charCodeAt(0)] = value;

/** 30 bits from characters 1 to 5 of a quoted ETag (the first is its opening quote). */
function bitsOf(etag: string): number {
  return (
    (((sextets[etag.charCodeAt(1) & 127] as number) << 24) |
      ((sextets[etag.charCodeAt(2) & 127] as number) << 18) |
      ((sextets[etag.charCodeAt(3) & 127] as number) << 12) |
      ((sextets[etag.charCodeAt(4) & 127] as number) << 6) |
      (sextets[etag.charCodeAt(5) & 127] as number)) >>>
    0
  );
}

export class Doorkeeper {
  readonly #words: Uint32Array;
  readonly #mask: number;
  readonly #window: number;
  #marked = 0;

  /** Admits an ETag asked for again within the last `window` distinct ones (at least 1). */
  constructor(window: number) {
    this.#window = Math.max(1, Math.floor(window));
    // A power of two of at least eight bits per ETag of the window: about one in eight shared at worst.
    const bits = 2 ** Math.max(5, Math.ceil(Math.log2(this.#window * 8)));
    this.#words = new Uint32Array(bits / 32);
    this.#mask = bits - 1;
  }

  /** Whether `etag` was asked for since the bitmap was last cleared; marks it asked for either way. */
  admits(etag: string): boolean {
    const bit = bitsOf(etag) & this.#mask;
    const word = bit >>> 5;
    const flag = 1 << (bit & 31);
    const words = this.#words;
    if (((words[word] as number) & flag) !== 0) return true;
    words[word] = (words[word] as number) | flag;
    if (++this.#marked >= this.#window) {
      words.fill(0);
      this.#marked = 0;
    }
    return false;
  }
}
