/**
 * The orders records are written in, stated once: names by a language's collation (English for
 * world-wide lists, Turkish for Türkiye's: İ after I, Ç after C), codes and keys by code point, so
 * that an import gives the same bytes on any machine and locale.
 */
export const englishCollator = new Intl.Collator('en');
export const turkishCollator = new Intl.Collator('tr');

export { compareCodePoints } from '../../records/ordering.ts';
