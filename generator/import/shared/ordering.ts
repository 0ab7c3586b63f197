/**
 * The orders records are written in, stated once: names by a language's collation (English for
 * world-wide lists, Turkish for Türkiye's: İ after I, Ç after C), codes and keys by code point, so
 * that an import gives the same bytes on any machine and locale.
 */
export const englishCollator = new Intl.Collator('en');
export const turkishCollator = new Intl.Collator('tr');

/** By UTF-16 code unit, as JavaScript's default sort: independent of the locale. */
export function compareCodePoints(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
