/** Türkiye's served neighbourhood records with their province and district by name: what the checks against PTT and TÜİK compare. */
import { z } from 'zod';
import { countrySchema, districtSchema, neighborhoodSchema, stateProvinceSchema } from '../records/schemas.ts';
import type { CheckedData } from './check.ts';

export interface ServedNeighbourhood {
  readonly province: string;
  readonly district: string;
  /** The served name ("Caferağa Mahallesi"). */
  readonly name: string;
  /** PTT's spelling the served name is read from ("Caferağa Mah"). */
  readonly pttName: string;
  readonly placeType: z.infer<typeof neighborhoodSchema>['placeType'];
  readonly zipCode: string;
}

export function servedTurkishNeighbourhoods(data: CheckedData): ServedNeighbourhood[] {
  const turkey = z
    .array(countrySchema)
    .parse(data.get('country') ?? [])
    .find((country) => country.alpha2Code === 'TR');
  const provinceById = new Map(
    z
      .array(stateProvinceSchema)
      .parse(data.get('stateProvince') ?? [])
      .filter((province) => province.countryId === turkey?.id)
      .map((province) => [province.id, province.name]),
  );
  // Only Türkiye's districts and their neighbourhoods: the other countries' are GeoNames' places.
  const districtById = new Map(
    z
      .array(districtSchema)
      .parse((data.get('district') ?? []).filter((district) => provinceById.has(String(district.stateProvinceId))))
      .map((district) => [district.id, district]),
  );
  return z
    .array(neighborhoodSchema)
    .parse((data.get('neighborhood') ?? []).filter((record) => districtById.has(String(record.districtId))))
    .map((record) => {
      const district = districtById.get(record.districtId);
      return {
        province: (district && provinceById.get(district.stateProvinceId)) ?? 'unknown province',
        district: district?.name ?? 'unknown district',
        name: record.name,
        pttName: record.pttName ?? record.name,
        placeType: record.placeType,
        zipCode: record.zipCode,
      };
    });
}
