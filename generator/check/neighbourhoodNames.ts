/**
 * `neighbourhoodNames`: the names the import reads out of PTT's abbreviations
 * (generator/import/addresses/neighbourhoodNames.ts: "Caferağa Mah" → "Caferağa Mahallesi", "Kumköy Mah
 * (Kilyos Mah)" → "Kumköy (Kilyos) Mahallesi") against TÜİK's names of the same units, as TurkiyeAPI
 * compiles them from TÜİK (data/checks/references/turkiye-api-neighborhoods-2024.json.gz for the
 * mahalles, turkiye-api-villages-2026-05-21.json for the villages). TÜİK writes the bare name and
 * gives the type apart, so a served name agrees when the name it was built from (`tuikName`: the
 * served name without its type word and bracketed village or belde) equals TÜİK's letter for letter.
 *
 * The target is on every name the import changes that names a TÜİK unit: the mahalles (belde
 * mahalles too) and the villages whose spelling the rules touch. Other rows are reported, not
 * targeted: a village's own name is PTT's, served as PTT writes it, and so is the village named in a
 * quarter's brackets; TÜİK lists no quarters of villages, industrial zones or free zones.
 *
 * Pairing, within one district only, first that applies: the same name in Turkish lower case with
 * single spaces (`strict`); the same letters without spaces, punctuation or Turkish diacritics
 * (`loose`); for villages, PTT's "X Köyü" for TÜİK's "Xköy" or the reverse (`köyWord`); an edit
 * distance of at most a fifth of the longer name (`similar`), for villages only among those with the
 * row's postal code (TurkiyeAPI's village codes are PTT's). A name that pairs only with a unit of the
 * other kind (a PTT mahalle that TÜİK has as a village) is counted apart, not compared.
 *
 * A paired name that differs is a disagreement keyed `<class> <province>/<district>/<PTT name>`:
 * `case` (only the case of letters or runs of spaces differ), `spelling` (spacing, diacritics or
 * punctuation) or `different` (other letters).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { placeName } from '../import/addresses/neighbourhoodNames.ts';
import type { CheckReport, DataCheck, Disagreement } from './check.ts';
import { readVillagesReference } from './postalCodes.ts';
import { type ServedNeighbourhood, servedTurkishNeighbourhoods } from './turkishNeighbourhoods.ts';

export const mahallesReferenceFile = 'turkiye-api-neighborhoods-2024.json.gz';

const mahallesSchema = z.object({
  title: z.string().min(1),
  repository: z.string().url(),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  path: z.string().min(1),
  fileSha256: z.string().regex(/^[0-9a-f]{64}$/),
  fileLastChanged: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  neighborhoods: z.array(z.tuple([z.string().min(1), z.string().min(1), z.string().min(1)])).min(1),
});

type UnitKind = 'mahalle' | 'köy';
export type Pairing = 'strict' | 'loose' | 'köyWord' | 'similar';
export type NameClass = 'equal' | 'case' | 'spelling' | 'different';

const turkishAscii: Readonly<Record<string, string>> = { ç: 'c', ğ: 'g', ı: 'i', ö: 'o', ş: 's', ü: 'u', â: 'a', î: 'i', û: 'u' };

/** Turkish lower case with single spaces: "Işık" and "İşık" stay apart. */
export const strictKey = (name: string): string => name.toLocaleLowerCase('tr').replace(/\s+/gu, ' ').trim();
/** The strict key without spaces, punctuation or Turkish diacritics: "Karaca Ören" = "Karacaören". */
export const looseKey = (name: string): string =>
  strictKey(name)
    .replace(/[çğıöşüâîû]/gu, (letter) => turkishAscii[letter] ?? letter)
    .replace(/[^0-9a-z]/gu, '');

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** Two names close enough to be one unit spelt two ways: at most one edit in five letters. */
export function similar(a: string, b: string): boolean {
  const [left, right] = [looseKey(a), looseKey(b)];
  return left.length > 0 && right.length > 0 && editDistance(left, right) <= Math.max(left.length, right.length) / 5;
}

/** The strict key with a capital İ read as I: the 2024 file writes "Ali Ihsan Paşa" for "Ali İhsan Paşa", a difference of case. */
const caseKey = (name: string): string => strictKey(name.replace(/İ/gu, 'I'));

/** How a served name differs from TÜİK's. */
export function classifyName(ours: string, theirs: string): NameClass {
  if (ours === theirs) return 'equal';
  if (strictKey(ours) === strictKey(theirs) || caseKey(ours) === caseKey(theirs)) return 'case';
  if (looseKey(ours) === looseKey(theirs)) return 'spelling';
  return 'different';
}

interface Unit {
  readonly name: string;
  readonly postalCode: string | null;
}

/** TÜİK's units by district and kind, with the keys rows are paired by. */
export class UnitIndex {
  private readonly byStrict = new Map<string, Unit>();
  private readonly byLoose = new Map<string, Unit>();
  private readonly byDistrict = new Map<string, Unit[]>();

  static districtKey(province: string, district: string): string {
    return `${strictKey(province)}/${strictKey(district)}`;
  }

  add(province: string, district: string, kind: UnitKind, unit: Unit): void {
    const place = `${UnitIndex.districtKey(province, district)}|${kind}`;
    const strict = `${place}|${strictKey(unit.name)}`;
    const loose = `${place}|${looseKey(unit.name)}`;
    if (!this.byStrict.has(strict)) this.byStrict.set(strict, unit);
    if (!this.byLoose.has(loose)) this.byLoose.set(loose, unit);
    const inDistrict = this.byDistrict.get(place);
    if (inDistrict) inDistrict.push(unit);
    else this.byDistrict.set(place, [unit]);
  }

  hasDistrict(province: string, district: string): boolean {
    const place = UnitIndex.districtKey(province, district);
    return this.byDistrict.has(`${place}|mahalle`) || this.byDistrict.has(`${place}|köy`);
  }

  /** The unit of this kind a row's name stands for, and how it was found; `otherKind` when only a unit of the other kind has the name. */
  pair(
    row: { readonly province: string; readonly district: string; readonly zipCode: string },
    kind: UnitKind,
    name: string,
  ): { unit: Unit; how: Pairing } | 'otherKind' | undefined {
    const place = `${UnitIndex.districtKey(row.province, row.district)}|${kind}`;
    const strict = this.byStrict.get(`${place}|${strictKey(name)}`);
    if (strict) return { unit: strict, how: 'strict' };
    const loose = this.byLoose.get(`${place}|${looseKey(name)}`);
    if (loose) return { unit: loose, how: 'loose' };
    if (kind === 'köy') {
      const folded = looseKey(name);
      const keys = [`${folded}koy`, `${folded}koyu`, ...(folded.endsWith('koy') && folded.length > 3 ? [folded.slice(0, -3)] : [])];
      const village = keys.map((key) => this.byLoose.get(`${place}|${key}`)).find((unit) => unit !== undefined);
      if (village) return { unit: village, how: 'köyWord' };
    }
    const other = `${UnitIndex.districtKey(row.province, row.district)}|${kind === 'köy' ? 'mahalle' : 'köy'}`;
    if (this.byStrict.has(`${other}|${strictKey(name)}`) || this.byLoose.has(`${other}|${looseKey(name)}`)) return 'otherKind';
    const close = (this.byDistrict.get(place) ?? []).find((unit) => (kind === 'mahalle' || unit.postalCode === row.zipCode) && similar(name, unit.name));
    return close ? { unit: close, how: 'similar' } : undefined;
  }
}

interface Compared {
  readonly rows: number;
  readonly paired: number;
  readonly otherKind: number;
  readonly equal: number;
  readonly differences: readonly {
    readonly place: string;
    readonly ours: string;
    readonly theirs: string;
    readonly nameClass: NameClass;
    readonly how: Pairing;
  }[];
}

function compare(index: UnitIndex, subjects: readonly { row: ServedNeighbourhood; kind: UnitKind; name: string; label: string }[]): Compared {
  let paired = 0;
  let otherKind = 0;
  let equal = 0;
  const differences: Compared['differences'][number][] = [];
  for (const { row, kind, name, label } of subjects) {
    const pairing = index.pair(row, kind, name);
    if (pairing === 'otherKind') otherKind += 1;
    if (pairing === undefined || pairing === 'otherKind') continue;
    paired += 1;
    const nameClass = classifyName(name, pairing.unit.name);
    if (nameClass === 'equal') equal += 1;
    else differences.push({ place: `${row.province}/${row.district}/${label}`, ours: name, theirs: pairing.unit.name, nameClass, how: pairing.how });
  }
  return { rows: subjects.length, paired, otherKind, equal, differences };
}

const ratio = (part: number, whole: number): number => (whole === 0 ? 0 : part / whole);

function countByClass(differences: Compared['differences']): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { nameClass, how } of differences) {
    const name = how === 'köyWord' ? 'köyWord' : nameClass;
    counts[name] = (counts[name] ?? 0) + 1;
  }
  return counts;
}

export const check: DataCheck = {
  name: 'neighbourhoodNames',
  explainedFigures: (report, notExplained) => ({
    namesChangedEqualCountingExplained: ratio((report.figures.namesChangedPaired ?? 0) - notExplained.length, report.figures.namesChangedPaired ?? 0),
  }),
  async run(data, dataDir): Promise<CheckReport> {
    const file = path.join(dataDir, 'checks', 'references', mahallesReferenceFile);
    const mahalles = mahallesSchema.parse(JSON.parse(gunzipSync(await readFile(file)).toString('utf8')));
    const villages = await readVillagesReference(dataDir);
    const index = new UnitIndex();
    for (const [province, district, name] of mahalles.neighborhoods) index.add(province, district, 'mahalle', { name, postalCode: null });
    for (const [province, district, name, postalCode] of villages.villages) index.add(province, district, 'köy', { name, postalCode });

    const served = servedTurkishNeighbourhoods(data);
    const places = served.map((row) => ({ row, place: placeName(row.pttName) }));
    const changed = places.filter(({ row }) => row.name !== row.pttName);
    const changedUnits = changed.filter(({ row }) => row.placeType === 'mahalle' || row.placeType === 'köy');
    const namesChanged = compare(
      index,
      changedUnits.map(({ row, place }) => ({ row, kind: row.placeType === 'köy' ? 'köy' : 'mahalle', name: place.tuikName, label: row.pttName })),
    );
    const ownVillages = compare(
      index,
      places.filter(({ row }) => row.placeType === 'köy').map(({ row, place }) => ({ row, kind: 'köy', name: place.tuikName, label: row.pttName })),
    );
    // The village a quarter's brackets name, once per district.
    const parentVillages = new Map<string, { row: ServedNeighbourhood; kind: UnitKind; name: string; label: string }>();
    for (const { row, place } of places) {
      const village = place.parent?.endsWith(' Köyü') && row.placeType !== 'köy' ? place.parent.slice(0, -' Köyü'.length) : undefined;
      const key = village && `${UnitIndex.districtKey(row.province, row.district)}/${village}`;
      if (village && key && !parentVillages.has(key)) parentVillages.set(key, { row, kind: 'köy', name: village, label: place.parent ?? village });
    }
    const villagesInBrackets = compare(index, [...parentVillages.values()]);
    const districtsWithoutUnits = [
      ...new Set(served.filter((row) => !index.hasDistrict(row.province, row.district)).map((row) => `${row.province}/${row.district}`)),
    ];

    const disagreements: Disagreement[] = namesChanged.differences.map((difference) => ({
      key: `${difference.nameClass} ${difference.place}`,
      ours: difference.ours,
      theirs: difference.theirs,
    }));
    return {
      name: 'neighbourhoodNames',
      reference:
        `TÜİK's names as TurkiyeAPI compiles them: mahalles of ${mahalles.fileLastChanged} (${mahalles.repository} ${mahalles.commit.slice(0, 7)}, ${mahalles.path}), ` +
        `villages of ${villages.datasetLastUpdated} (${villages.commit.slice(0, 7)})`,
      figures: {
        servedRows: served.length,
        namesChanged: changed.length,
        namesChangedTuikUnits: namesChanged.rows,
        namesChangedPaired: namesChanged.paired,
        namesChangedPairedShare: ratio(namesChanged.paired, namesChanged.rows),
        namesChangedOtherKind: namesChanged.otherKind,
        namesChangedEqual: ratio(namesChanged.equal, namesChanged.paired),
        villageRows: ownVillages.rows,
        villagesPaired: ownVillages.paired,
        villageNamesEqual: ratio(ownVillages.equal, ownVillages.paired),
        villagesInBrackets: villagesInBrackets.rows,
        villagesInBracketsPaired: villagesInBrackets.paired,
        villagesInBracketsEqual: ratio(villagesInBrackets.equal, villagesInBrackets.paired),
        districtsWithoutTuikUnits: districtsWithoutUnits.length,
      },
      targets: { namesChangedEqual: 0.99, namesChangedPairedShare: 0.99 },
      disagreements,
      detail: {
        districtsWithoutTuikUnits: districtsWithoutUnits,
        villageDifferencesByClass: countByClass(ownVillages.differences),
        villageDifferences: ownVillages.differences,
        villagesInBracketsDifferencesByClass: countByClass(villagesInBrackets.differences),
        villagesInBracketsDifferences: villagesInBrackets.differences,
      },
    };
  },
};
