/**
 * The one order of codes, keys, file names and ids in what the generator writes: by UTF-16 code
 * unit, as JavaScript's default sort, so that a build gives the same bytes on any machine and
 * locale. Names are ordered by a language's collation instead (import/shared/ordering.ts).
 */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
