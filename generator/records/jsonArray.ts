/**
 * A record file's JSON array parsed a piece at a time.
 *
 * A record file holds up to tens of megabytes. Decoding it into one string allocates the string
 * afresh for every file, outside the heap's reused pages, and that allocation costs more than the
 * parse. Our record files hold one record a line, so the text can be cut at line ends, where no
 * string can be cut (JSON strings hold no raw line break). Each piece is decoded and parsed on its
 * own, as an array of the records it holds. Pieces are cut at the first line end after `pieceBytes`.
 *
 * The result is exactly JSON.parse's, or this returns undefined and the caller parses the whole
 * text. A piece must be whole elements of the outer array, comma-separated, as its own array:
 * - the first piece begins with the outer `[`, the last ends with its `]`;
 * - every piece but the last ends with the comma that separates it from the next;
 * - what is left of each piece parses when wrapped in `[` and `]`.
 * A cut inside a nested value leaves a bracket open in one piece or the other, which then does not
 * parse, so pieces that all parse hold the outer array's elements, in order.
 */

/** About the size of text the heap decodes into its own reused pages rather than a fresh allocation. */
export const pieceBytes = 64 * 1024;

const newline = 0x0a;
const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** The records of a JSON array's text, by pieces; undefined when the text is not cut cleanly (parse it whole instead). */
export function parseJsonArrayByPieces(bytes: Buffer, size = pieceBytes): unknown[] | undefined {
  const records: unknown[] = [];
  // The piece read last and not yet parsed: whether it ends the array is known only at the next.
  let pending: { from: number; end: number } | undefined;
  const parsePending = (last: boolean): boolean => {
    if (pending === undefined) return true;
    let { from, end } = pending;
    const endsWithComma = bytes[end - 1] === 0x2c;
    // Every piece but the last ends with the comma that separates it from the next; the last does not.
    if (endsWithComma === last) return false;
    if (endsWithComma) {
      end--;
      while (end > from && isSpace(bytes[end - 1])) end--;
      if (end === from) return false; // two commas in a row
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(`[${bytes.toString('utf8', from, end)}]`);
    } catch {
      return false;
    }
    for (const record of parsed as unknown[]) records.push(record);
    pending = undefined;
    return true;
  };
  let start = 0;
  while (start < bytes.length) {
    const cut = bytes.indexOf(newline, Math.min(start + size, bytes.length));
    const next = cut === -1 ? bytes.length : cut + 1;
    let from = start;
    let end = next;
    while (from < end && isSpace(bytes[from])) from++;
    while (end > from && isSpace(bytes[end - 1])) end--;
    if (start === 0) {
      if (from === end || bytes[from] !== 0x5b) return undefined; // [
      from++;
      while (from < end && isSpace(bytes[from])) from++;
    }
    if (next === bytes.length) {
      if (from === end || bytes[end - 1] !== 0x5d) return undefined; // ]
      end--;
      while (end > from && isSpace(bytes[end - 1])) end--;
    }
    // A piece of white space alone (or of the outer bracket alone) holds nothing.
    if (end > from) {
      if (!parsePending(false)) return undefined;
      pending = { from, end };
    }
    start = next;
  }
  return start > 0 && parsePending(true) ? records : undefined;
}
