/** Aliases of districts from GeoNames' cities (generator/import/addresses/exonyms.ts), by the stated rule. */
import { describe, expect, it } from 'vitest';
import { distanceKm, matchExonyms, type CityPlace, type DistrictPlace } from '../../generator/import/addresses/exonyms.ts';

const munich: DistrictPlace = { key: 'muenchen', name: 'München', admin1: 'DE-BY', latitude: 48.1345, longitude: 11.571 };
const garching: DistrictPlace = { key: 'garching', name: 'Garching b. München', admin1: 'DE-BY', latitude: 48.249, longitude: 11.651 };

describe('aliases of districts', () => {
  it('München is Munich: the nearest city of the same state, named otherwise, with the same initial', () => {
    const cities: CityPlace[] = [{ name: 'Munich', admin1: 'DE-BY', latitude: 48.1374, longitude: 11.5755 }];
    expect(matchExonyms([munich, garching], cities, ['München', 'Garching b. München'])).toEqual(new Map([['muenchen', 'Munich']]));
  });

  it('a city in another state is not matched, however near', () => {
    const cities: CityPlace[] = [{ name: 'Munich', admin1: 'DE-BW', latitude: 48.1374, longitude: 11.5755 }];
    expect(matchExonyms([munich], cities, ['München'])).toEqual(new Map());
  });

  it(`a city farther than 10 km is not matched`, () => {
    const cities: CityPlace[] = [{ name: 'Munich', admin1: 'DE-BY', latitude: 48.3, longitude: 11.571 }];
    expect(distanceKm(munich, cities[0] as CityPlace)).toBeGreaterThan(10);
    expect(matchExonyms([munich], cities, ['München'])).toEqual(new Map());
  });

  it('a name the country uses for a postal place is that place, not an alias', () => {
    const cities: CityPlace[] = [{ name: 'Unterföhring', admin1: 'DE-BY', latitude: 48.1374, longitude: 11.5755 }];
    expect(matchExonyms([munich], cities, ['München', 'Unterföhring'])).toEqual(new Map());
  });

  it('where GeoNames lists the place under its own name, a nearer city of another name is another place (Köln, Altstadt Nord)', () => {
    const cologne: DistrictPlace = { key: 'koeln', name: 'Köln', admin1: 'DE-NW', latitude: 50.94, longitude: 6.95 };
    const cities: CityPlace[] = [
      { name: 'Altstadt Nord', admin1: 'DE-NW', latitude: 50.9401, longitude: 6.9501 },
      { name: 'Köln', admin1: 'DE-NW', latitude: 50.9333, longitude: 6.95 },
    ];
    expect(matchExonyms([cologne], cities, ['Köln'])).toEqual(new Map());
  });

  it('a neighbouring village with another initial, 5 km away, is not an alias; within 2 km Wien is Vienna', () => {
    const village: DistrictPlace = { key: 'atterwasch', name: 'Atterwasch', admin1: 'DE-BB', latitude: 51.8, longitude: 14.6 };
    const neighbour: CityPlace = { name: 'Schenkendöbern', admin1: 'DE-BB', latitude: 51.845, longitude: 14.6 };
    expect(matchExonyms([village], [neighbour], ['Atterwasch'])).toEqual(new Map());
    const vienna: DistrictPlace = { key: 'wien', name: 'Wien', admin1: 'AT-9', latitude: 48.2, longitude: 16.37 };
    expect(matchExonyms([vienna], [{ name: 'Vienna', admin1: 'AT-9', latitude: 48.2085, longitude: 16.3721 }], ['Wien'])).toEqual(
      new Map([['wien', 'Vienna']]),
    );
  });

  it('a city nearer to another district is that one’s, not this one’s', () => {
    const cities: CityPlace[] = [{ name: 'Garching', admin1: 'DE-BY', latitude: 48.25, longitude: 11.65 }];
    expect(matchExonyms([munich, garching], cities, ['München', 'Garching b. München'])).toEqual(new Map([['garching', 'Garching']]));
  });
});
