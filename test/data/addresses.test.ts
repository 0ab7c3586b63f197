/**
 * The address records `npm run data:import` wrote: ISO 3166-2 subdivisions world-wide (iso-codes 4.20.1),
 * Turkey's districts and neighbourhoods with postal codes (PTT's postal code list, vendored), checked
 * against an independent sample of villages, and re-imported byte for byte.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ImportError } from '../../generator/import/shared/importError.ts';
import { check as subdivisionsCheck } from '../../generator/check/subdivisions.ts';
import { cleanSubdivisionName } from '../../generator/import/addresses/isoCodes.ts';
import { importReferenceData } from '../../generator/import/main.ts';
import { cleanNeighbourhoodName, loadTurkeyAddresses, neighbourhoodKeys } from '../../generator/import/addresses/turkey.ts';
import { countrySchema, districtSchema, neighborhoodSchema, stateProvinceSchema, type Country, type DataRecord } from '../../generator/records/schemas.ts';
import type { RecordType } from '../../contract/routes.ts';
import { copyData, dataDir, recordsDir, removeCopies, uuidV4 } from '../support/data.ts';

type StateProvince = z.infer<typeof stateProvinceSchema>;
type District = z.infer<typeof districtSchema>;
type Neighborhood = z.infer<typeof neighborhoodSchema>;

const turkish = new Intl.Collator('tr');
const english = new Intl.Collator('en');
const fold = (name: string) => name.toLocaleLowerCase('tr');

/** 73,169 rows in PTT's list of 2025-11-22, less 4 places PTT lists twice and 3 it spells two ways with one postal code. */
const neighbourhoodCount = 73_162;

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
  // Türkiye's parts are named by plate code; the other countries' (worldAddresses.test.ts) by alpha-2 code.
  const partFiles = (await readdir(path.join(recordsDir, 'neighborhood'))).filter((name) => /^\d{2}\.json$/.test(name)).sort();
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
    expect(provinces.map((candidate) => candidate.abbreviation)).toEqual(Array.from({ length: 81 }, (_, index) => String(index + 1).padStart(2, '0')));
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

describe('states and provinces follow the current ISO 3166-2 (iso-codes 4.20.1)', () => {
  const codesOf = (alpha2Code: string) => {
    const country = countries.find((candidate) => candidate.alpha2Code === alpha2Code);
    return stateProvinces.filter((stateProvince) => stateProvince.countryId === country?.id).map((stateProvince) => stateProvince.abbreviation);
  };

  it('Latvia has its 43 units of the 2021 reform (36 municipalities, 7 state cities), not the 119 before it', () => {
    const latvian = codesOf('LV');
    expect(latvian).toHaveLength(43);
    expect(latvian).toEqual(expect.arrayContaining(['111', '112', '113', 'RIX', 'DGV']));
    expect(latvian).not.toContain('001');
  });

  it('India uses the codes of 2023: TS, CG, OD, UK, not TG, CT, OR, UT', () => {
    const indian = codesOf('IN');
    expect(indian).toEqual(expect.arrayContaining(['TS', 'CG', 'OD', 'UK']));
    for (const old of ['TG', 'CT', 'OR', 'UT']) expect(indian).not.toContain(old);
  });

  it("Nepal has its 7 provinces, not the zones and development regions before 2015's constitution", () => {
    expect(codesOf('NP').sort()).toEqual(['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7']);
  });

  it('Algeria has its 58 provinces, up to DZ-58', () => {
    const algerian = codesOf('DZ');
    expect(algerian).toHaveLength(58);
    expect(algerian).toContain('58');
  });

  it('Indonesia has the Papua provinces of 2022: PE, PS, PT and PD', () => {
    expect(codesOf('ID')).toEqual(expect.arrayContaining(['PA', 'PB', 'PD', 'PE', 'PS', 'PT']));
  });

  it("no name keeps ISO's footnote marks or bracketed alternatives", () => {
    expect(stateProvinces.filter((stateProvince) => /[[\]*†]/u.test(stateProvince.name))).toEqual([]);
    const alpha2ById = new Map(countries.map((country) => [country.id, country.alpha2Code]));
    const names = new Map(
      stateProvinces.map((stateProvince) => [`${alpha2ById.get(stateProvince.countryId)}-${stateProvince.abbreviation}`, stateProvince.name]),
    );
    expect(names.get('ES-A')).toBe('Alicante');
    expect(names.get('ES-C')).toBe('A Coruña');
    expect(names.get('SE-AB')).toBe('Stockholms län');
    expect(names.get('MK-801')).toBe('Aerodrom');
  });

  it('the subdivisions check names a code CLDR lists that is not served, and one served that CLDR does not list', async () => {
    const idOf = (alpha2Code: string) => countries.find((country) => country.alpha2Code === alpha2Code)?.id;
    const is = (stateProvince: StateProvince, alpha2Code: string, abbreviation: string) =>
      stateProvince.countryId === idOf(alpha2Code) && stateProvince.abbreviation === abbreviation;
    // Riga left out; Auvergne-Rhône-Alpes under its code before 2016, FR-C.
    const changed = stateProvinces
      .filter((stateProvince) => !is(stateProvince, 'LV', 'RIX'))
      .map((stateProvince) => (is(stateProvince, 'FR', 'ARA') ? { ...stateProvince, abbreviation: 'C' } : stateProvince));
    const data = new Map<RecordType, readonly DataRecord[]>([
      ['country', countries],
      ['stateProvince', changed],
    ]);
    const report = await subdivisionsCheck.run(data, '');
    expect(report.disagreements).toEqual([
      { key: 'FR-ARA', ours: 'absent', theirs: 'a current code' },
      { key: 'FR-C', ours: '"Auvergne-Rhône-Alpes"', theirs: 'deprecated in CLDR, replaced by FR-ARA' },
      { key: 'LV-RIX', ours: 'absent', theirs: 'a current code' },
    ]);
    expect(report.figures).toMatchObject({ countriesCompared: 200, countriesEqualCount: 198, codesMissing: 2, codesExtra: 1 });
  });

  it('cleaning keeps the first name and drops a trailing bracket or footnote mark', () => {
    expect(cleanSubdivisionName('Alacant*')).toBe('Alacant');
    expect(cleanSubdivisionName('Aerodrom †')).toBe('Aerodrom');
    expect(cleanSubdivisionName('Isle of Anglesey [Sir Ynys Môn GB-YNM]')).toBe('Isle of Anglesey');
    expect(cleanSubdivisionName('Amānat al ‘Āşimah [city]')).toBe('Amānat al ‘Āşimah');
    expect(cleanSubdivisionName('Sofia (stolitsa)')).toBe('Sofia (stolitsa)');
    expect(cleanSubdivisionName('Vale of Glamorgan, The')).toBe('Vale of Glamorgan, The');
  });
});

describe('Turkish districts (PTT)', () => {
  it('are the 973 districts, each in a Turkish province, by plate code then name', () => {
    expect(districts).toHaveLength(973);
    const plateById = new Map(provinces.map((candidate) => [candidate.id, candidate.abbreviation]));
    for (const district of districts) expect(plateById.has(district.stateProvinceId), district.name).toBe(true);
    const order = districts.map((district) => ({ plate: plateById.get(district.stateProvinceId) ?? '', name: district.name }));
    expect(order).toEqual([...order].sort((a, b) => a.plate.localeCompare(b.plate) || turkish.compare(a.name, b.name)));
    for (const candidate of provinces)
      expect(
        order.some((entry) => entry.plate === candidate.abbreviation),
        candidate.name,
      ).toBe(true);
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

describe('Turkish neighbourhoods and villages (PTT)', () => {
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

  it('leave out only the 4 places PTT lists twice in one district, under two ids', async () => {
    const { dropped } = await loadTurkeyAddresses(dataDir);
    const repeats = dropped.map((row) => `${row.plateCode} ${row.district} ${row.zipCode} "${row.name}": ${row.pttId} = ${row.keptPttId}`);
    expect(repeats.sort()).toEqual([
      '14 Merkez 14030 "Merkez Mah (Örencik Köyü)": 281_4 = 176_4',
      '14 Merkez 14030 "Yuva Merkez Mah (Yuva Köyü)": 283_4 = 272_4',
      '29 Torul 29802 "Yayla Evleri Mah (Küçükçit Köyü)": 190_2 = 191_2',
      '78 Merkez 78010 "Merkez Mah (Aşağı Kızılcaören Köyü)": 16_5 = 135_5',
    ]);
  });

  it('repair the scraper\'s 7 misread rows: a code read from the name, and names cut at "/"', async () => {
    const { repairs } = await loadTurkeyAddresses(dataDir);
    const repaired = repairs.map(
      ({ plateCode, district, scraped, repaired: row, rule }) =>
        `${rule}: ${plateCode} ${district} "${scraped.name}" ${scraped.zipCode} → "${row.name}" ${row.zipCode}`,
    );
    expect(repaired.sort()).toEqual([
      'name cut at "/": 05 Merkez "Terziköy" 05220 → "Terziköy/kaplıca Mah (çivi Köyü)" 05220',
      'name cut at "/": 23 Sivrice "Tuztaşı" 23902 → "Tuztaşı/değirmen Mah (kürkköy Köyü)" 23902',
      'name cut at "/": 28 Bulancak "Deredibi" 28302 → "Deredibi / Duacıoğlu Mah (inece Köyü)" 28302',
      'name cut at "/": 64 Eşme "Topallar" 64602 → "Topallar/uzun Tarla Mah (davutlar Köyü)" 64602',
      'name cut at "/": 70 Sarıveliler "Pireli" 70802 → "Pireli/aşakbel Mah (dumlugöze Köyü)" 70802',
      'name cut at "/": 70 Sarıveliler "Pireli" 70810 → "Pireli/aşakbel-geven-dikenli-ormanlı-çukur-çetincy Mah (dumlugöze Köyü)" 70810',
      'postal area: 70 Ermenek "590711 Mah (balkusan Köyü)" 59071 → "590711 Mah (balkusan Köyü)" 70402',
    ]);
  });

  it("follow PTT's list of 2025-11-22: Ataşehir's Barbaros Mah is 34634 (34746 in PTT's bulk list as taken in 2024)", () => {
    const [atasehir] = districtsOf('İstanbul', 'Ataşehir');
    expect(atasehir).toBeDefined();
    const barbaros = neighbourhoodsOf(atasehir as District).filter((record) => record.pttName === 'Barbaros Mah');
    expect(barbaros.map((record) => record.zipCode)).toEqual(['34634']);
  });

  it('a postal code PTT changes keeps the neighbourhood key, so the record keeps its id', () => {
    const rows = [
      { district: 'Ataşehir', name: 'Barbaros Mah' },
      { district: 'Pazar', name: 'Merkez Mah' },
      { district: 'Pazar', name: 'Merkez Mah' },
    ];
    const keyOf = neighbourhoodKeys(rows);
    expect(keyOf({ district: 'Ataşehir', name: 'Barbaros Mah', zipCode: '34634' })).toBe(
      keyOf({ district: 'Ataşehir', name: 'Barbaros Mah', zipCode: '34746' }),
    );
    expect(keyOf({ district: 'Pazar', name: 'Merkez Mah', zipCode: '53300' })).not.toBe(keyOf({ district: 'Pazar', name: 'Merkez Mah', zipCode: '53302' }));
  });

  it('Kadıköy has Caferağa Mahallesi (PTT: Caferağa Mah) with 34710', () => {
    const [kadikoy] = districtsOf('İstanbul', 'Kadıköy');
    expect(kadikoy).toBeDefined();
    expect(neighbourhoodsOf(kadikoy as District)).toContainEqual(
      expect.objectContaining({ name: 'Caferağa Mahallesi', pttName: 'Caferağa Mah', placeType: 'mahalle', parentPlace: null, zipCode: '34710' }),
    );
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
const villageSampleFile = path.resolve(import.meta.dirname, '../fixtures/facts/turkiye-villages-sample.json');
const villageSchema = z.object({ province: z.string(), district: z.string(), village: z.string(), postalCode: z.string() });

/**
 * Sample villages PTT spells differently; each is found under PTT's name, in the same district
 * with the same postal code.
 */
const pttSpelling: Record<string, { readonly ptt: string; readonly why: string }> = {
  'Çankırı/Merkez/Çiviköy': { ptt: 'Çivi', why: 'PTT drops the -köy before Köyü ("Köy İçi Mah (Çivi Köyü)")' },
  'Çorum/Alaca/Çalköy': { ptt: 'Çal', why: 'PTT drops the -köy before Köyü' },
  'Elazığ/Kovancılar/Osmanağaköy': { ptt: 'Osmanağa', why: 'PTT drops the -köy before Köyü' },
  'Erzincan/İliç/Doğanköy': { ptt: 'Doğan', why: 'PTT drops the -köy before Köyü' },
  'Kastamonu/Araç/Köseköy': { ptt: 'Köse', why: 'PTT drops the -köy before Köyü (only sub-units: "Merkez Mah (Köse Köyü)")' },
  'Kütahya/Domaniç/Domaniçkozluca': { ptt: 'Kozluca', why: 'TÜİK prefixes the district name; PTT does not' },
  'Kütahya/Merkez/Uluköy': { ptt: 'Ulu', why: 'PTT drops the -köy before Köyü' },
  'Tunceli/Ovacık/Çatköy': { ptt: 'Çat', why: 'PTT drops the -köy before Köyü' },
};

/**
 * Sample villages that PTT's list of 2025-11-22 does not have in their district under any spelling
 * found. (Its 2024 list also lacked Dinar/Türkmen and Gölyaka/Gökçedere, and spelt Yenipelitçik,
 * Dereboyu, Asboğa and Sofca otherwise; the 2025 list has them as TÜİK writes them.)
 */
const notInPtt: Record<string, string> = {
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
    expect({ matchedAsGiven, matchedAsPttSpells }).toEqual({ matchedAsGiven: 291, matchedAsPttSpells: 8 });
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

  it('refuses to run when SOURCES.md does not name the vendored iso-codes release', async () => {
    const copy = await copyData();
    const sourcesFile = path.join(copy, 'SOURCES.md');
    await writeFile(sourcesFile, (await readFile(sourcesFile, 'utf8')).replaceAll('iso-codes@', 'iso-codes '));
    const failure = importReferenceData(copy);
    await expect(failure).rejects.toBeInstanceOf(ImportError);
    await expect(failure).rejects.toThrow(/does not name iso-codes@4\.20\.1 \(vendored/);
  });

  it('refuses a vendored iso-codes file that is not the one its provenance record describes', async () => {
    const copy = await copyData();
    const vendored = path.join(copy, 'sources', 'iso_3166-2.json');
    await writeFile(vendored, (await readFile(vendored, 'utf8')).replace('"Canillo"', '"Canillo*"'));
    const failure = importReferenceData(copy);
    await expect(failure).rejects.toBeInstanceOf(ImportError);
    await expect(failure).rejects.toThrow(/iso_3166-2\.json has sha256 [0-9a-f]{64}, not the 78c90ef7/);
  });
});

describe("re-importing Türkiye's neighbourhoods", () => {
  afterAll(removeCopies);

  it('refuses a vendored PTT snapshot that is not the one its provenance record describes', async () => {
    const copy = await copyData();
    const snapshot = path.join(copy, 'sources', 'ptt-postal-codes-2025-11-22.json.gz');
    const text = gunzipSync(await readFile(snapshot)).toString('utf8');
    await writeFile(snapshot, gzipSync(text.replace('"posta_kodu":"34634"', '"posta_kodu":"34746"')));
    const failure = loadTurkeyAddresses(copy);
    await expect(failure).rejects.toBeInstanceOf(ImportError);
    await expect(failure).rejects.toThrow(/ptt-postal-codes-2025-11-22\.json\.gz has sha256 [0-9a-f]{64}, not the fcec55f8/);
  });
});
