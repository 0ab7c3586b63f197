/**
 * What the country link records (country currency, language, time zone, web domain) share: stable
 * ids by natural key (the country's alpha-3 code and the linked record's own key) and the order
 * they are written in (by country name, then by the linked record).
 */
import type { Country } from '../../records/schemas.ts';
import { reuseIds } from '../shared/ids.ts';
import { englishCollator } from '../shared/ordering.ts';

export type LinkIdFor = (alpha3Code: string, linkedKey: string) => string;

/**
 * Ids of the links the previous import wrote, found again by alpha-3 code and the linked record's
 * key. A previous link whose country or linked record no longer exists is dropped: nothing can
 * refer to it any more.
 */
export function reuseLinkIds<Link extends { readonly id: string; readonly countryId: string }>(
  recordType: string,
  previous: readonly Link[],
  countries: readonly Country[],
  linkedKeyOf: (link: Link) => string | undefined,
): LinkIdFor {
  const alpha3ById = new Map(countries.map((country) => [country.id, country.alpha3Code]));
  const keyed = previous.flatMap((link) => {
    const alpha3Code = alpha3ById.get(link.countryId);
    const linkedKey = linkedKeyOf(link);
    return alpha3Code === undefined || linkedKey === undefined ? [] : [{ id: link.id, key: `${alpha3Code} ${linkedKey}` }];
  });
  const idFor = reuseIds(recordType, keyed, (entry) => entry.key);
  return (alpha3Code, linkedKey) => idFor(`${alpha3Code} ${linkedKey}`);
}

/** Countries in English name order, the order every link file starts from. */
export function byCountryName(countries: readonly Country[]): Country[] {
  return [...countries].sort((a, b) => englishCollator.compare(a.name, b.name) || a.alpha3Code.localeCompare(b.alpha3Code));
}
