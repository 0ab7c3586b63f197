/**
 * Other common names of a district (Munich for München): the name GeoNames' cities list gives the
 * city at the district's place, where it differs from the postal name. GeoNames' cities `name` is
 * the English name for the cities that have a well-known one and the local name for the rest, so
 * most matches give no alias ("Köln" stays "Köln").
 *
 * The rule, all of it required (applied only where a district is a postal place, a town or city,
 * not where it is a county or municipality with many places):
 * - the city and the district are in the same country and the same ISO 3166-2 first-level
 *   subdivision (the city's GeoNames admin1 name mapped through data/curated/geonames-admin1-iso.json);
 * - they are each other's nearest (the city nearest to the district's centre among that
 *   subdivision's cities, and the district nearest to the city), at most `maxDistanceKm` apart;
 *   a district's centre is the mean of its postal rows' coordinates;
 * - no city of the district's own name (folded as lookups fold names) lies within `maxDistanceKm`
 *   of the centre: where GeoNames lists the place under its own name, a nearer city is another place;
 * - the city's name, folded, is neither the district's nor that of any other district or postal
 *   place of the country: a name the country itself uses for a place is that place's;
 * - the two names begin with the same letter once folded (München, Munich), or the city lies
 *   within `closeKm` of the centre (Wien, Vienna): a neighbouring village is neither.
 */
import { foldName } from '../../../contract/keys.ts';

export const maxDistanceKm = 10;
export const closeKm = 2;

export interface Located {
  readonly latitude: number;
  readonly longitude: number;
  /** The ISO 3166-2 first-level code of the subdivision the place is in. */
  readonly admin1: string;
}
export interface DistrictPlace extends Located {
  readonly key: string;
  readonly name: string;
}
export interface CityPlace extends Located {
  readonly name: string;
}

const cellDegrees = 0.1;
const cellOf = (latitude: number, longitude: number) => [Math.floor(latitude / cellDegrees), Math.floor(longitude / cellDegrees)] as const;

/** Kilometres between two points (equirectangular: exact enough within tens of kilometres). */
export function distanceKm(a: { latitude: number; longitude: number }, b: { latitude: number; longitude: number }): number {
  const x = (((b.longitude - a.longitude) * Math.PI) / 180) * Math.cos((((a.latitude + b.latitude) / 2) * Math.PI) / 180);
  const y = ((b.latitude - a.latitude) * Math.PI) / 180;
  return Math.sqrt(x * x + y * y) * 6371;
}

/** A grid of the places of one subdivision, to find the nearest within `maxDistanceKm`. */
class Grid<Place extends Located> {
  readonly #cells = new Map<string, Place[]>();
  constructor(places: readonly Place[]) {
    for (const place of places) {
      const [row, column] = cellOf(place.latitude, place.longitude);
      const key = `${place.admin1}|${row}|${column}`;
      const cell = this.#cells.get(key) ?? [];
      this.#cells.set(key, cell);
      cell.push(place);
    }
  }
  nearest(from: Located): Place | undefined {
    const [row, column] = cellOf(from.latitude, from.longitude);
    // A cell is at least 0.1° (about 11 km north-south, less east-west at high latitude): look two cells around.
    const reach = 2 + Math.ceil(1 / Math.max(Math.cos((from.latitude * Math.PI) / 180), 0.2));
    let best: Place | undefined;
    let bestDistance = maxDistanceKm;
    for (let dr = -2; dr <= 2; dr++) {
      for (let dc = -reach; dc <= reach; dc++) {
        for (const place of this.#cells.get(`${from.admin1}|${row + dr}|${column + dc}`) ?? []) {
          const distance = distanceKm(from, place);
          if (distance <= bestDistance) {
            best = place;
            bestDistance = distance;
          }
        }
      }
    }
    return best;
  }
}

/**
 * The aliases of one country's districts, by district key. `usedNames` are every district and
 * postal place name of the country, which no alias may be.
 */
export function matchExonyms(districts: readonly DistrictPlace[], cities: readonly CityPlace[], usedNames: Iterable<string>): Map<string, string> {
  const used = new Set([...usedNames].map(foldName));
  const located = <Place extends Located>(places: readonly Place[]) =>
    places.filter((place) => Number.isFinite(place.latitude) && Number.isFinite(place.longitude));
  const districtGrid = new Grid(located(districts));
  const cityGrid = new Grid(located(cities));
  const aliases = new Map<string, string>();
  const namedCities = new Map<string, CityPlace[]>();
  for (const city of located(cities)) {
    const folded = foldName(city.name);
    namedCities.set(folded, [...(namedCities.get(folded) ?? []), city]);
  }
  for (const district of located(districts)) {
    const city = cityGrid.nearest(district);
    if (city === undefined || districtGrid.nearest(city) !== district) continue;
    const folded = foldName(city.name);
    const own = foldName(district.name);
    if (folded === '' || folded === own || used.has(folded)) continue;
    const ownCity = (namedCities.get(own) ?? []).some((named) => named.admin1 === district.admin1 && distanceKm(named, district) <= maxDistanceKm);
    if (ownCity) continue;
    if (folded[0] !== own[0] && distanceKm(city, district) > closeKm) continue;
    aliases.set(district.key, city.name);
  }
  return aliases;
}
