/**
 * `postalCodes`: Türkiye's served neighbourhoods and their postal codes (neighborhood/<plate>.json)
 * against two lists.
 *
 * 1. PTT's list they are imported from (data/sources/, read exactly as the importer reads it):
 *    every row both ways, so the figure is 1 by construction unless data/records was edited by
 *    hand or not re-imported after the snapshot changed. Keys `PTT <province>/<district>/<name>`.
 * 2. An independent compilation: TurkiyeAPI's villages (TÜİK's units and spellings, each with the
 *    postal code TurkiyeAPI took from PTT, 2026-05-21;
 *    data/checks/references/turkiye-api-villages-2026-05-21.json). PTT lists a village as
 *    "X Köyü" and the parts of one as "… (X Köyü)"; every served row of a village the reference
 *    has is compared with that village's code. Keys `<province>/<district>/<name>` (our row's name).
 *    TÜİK and PTT spell some villages differently, so a village found on one side only is counted
 *    (`villagesOnlyTheirs`, `villageRowsOnlyOurs`, listed in the detail), not a disagreement.
 *    Villages the reference marks `estimated` (not from PTT) are left out.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { loadTurkeyAddresses } from '../import/addresses/turkey.ts';
import type { CheckReport, DataCheck, Disagreement } from './check.ts';
import { servedTurkishNeighbourhoods } from './turkishNeighbourhoods.ts';

export const postalCodesReferenceFile = 'turkiye-api-villages-2026-05-21.json';

const villagesSchema = z.object({
  title: z.string().min(1),
  repository: z.string().url(),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  datasetLastUpdated: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  villages: z.array(z.tuple([z.string().min(1), z.string().min(1), z.string().min(1), z.string().regex(/^\d{5}$/), z.enum(['official', 'estimated'])])).min(1),
});

export type VillagesReference = z.infer<typeof villagesSchema>;

/** TurkiyeAPI's villages: [province, district, village, postal code, whether the code is PTT's or estimated]. */
export async function readVillagesReference(dataDir: string): Promise<VillagesReference> {
  return villagesSchema.parse(JSON.parse(await readFile(path.join(dataDir, 'checks', 'references', postalCodesReferenceFile), 'utf8')));
}

interface Row {
  readonly province: string;
  readonly district: string;
  readonly name: string;
  readonly zipCode: string;
}

const ratio = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);
const place = (row: { readonly province: string; readonly district: string }, name: string) => `${row.province}/${row.district}/${name}`;

/** Postal codes by `<province>/<district>/<name>` (a name may repeat in a district with other codes). */
function codesByPlace(rows: readonly Row[]): Map<string, string> {
  const codes = new Map<string, string[]>();
  for (const row of rows) {
    const key = place(row, row.name);
    codes.set(key, [...(codes.get(key) ?? []), row.zipCode]);
  }
  return new Map([...codes].map(([key, list]) => [key, list.sort().join(', ')]));
}

function compareWithPtt(ours: readonly Row[], ptt: readonly Row[]) {
  const served = codesByPlace(ours);
  const listed = codesByPlace(ptt);
  const disagreements: Disagreement[] = [];
  let compared = 0;
  let equal = 0;
  let onlyOurs = 0;
  let onlyTheirs = 0;
  for (const key of [...new Set([...served.keys(), ...listed.keys()])].sort()) {
    const ourCodes = served.get(key);
    const theirCodes = listed.get(key);
    if (ourCodes === undefined) onlyTheirs += 1;
    else if (theirCodes === undefined) onlyOurs += 1;
    else {
      compared += 1;
      if (ourCodes === theirCodes) {
        equal += 1;
        continue;
      }
    }
    disagreements.push({ key: `PTT ${key}`, ours: ourCodes ?? 'absent', theirs: theirCodes ?? 'absent' });
  }
  return { compared, equal, onlyOurs, onlyTheirs, disagreements };
}

/** Turkish lower case, no spaces: TÜİK's "Aşağı Kaşıkara" is PTT's "Aşağıkaşıkara Köyü". */
const foldVillage = (name: string) => name.toLocaleLowerCase('tr').replace(/\s+/g, '');

/** The village a PTT row belongs to: "X Köyü" is village X, "… (X Köyü)" a part of it; otherwise none. */
function villageOf(name: string): string | undefined {
  const whole = /^([^()]+) Köyü$/u.exec(name);
  if (whole?.[1]) return whole[1];
  return /\(([^()]+) Köyü\)$/u.exec(name)?.[1];
}

function compareWithVillages(ours: readonly Row[], villages: VillagesReference['villages']) {
  const rowsByVillage = new Map<string, Row[]>();
  for (const row of ours) {
    const village = villageOf(row.name);
    if (village === undefined) continue;
    const key = place(row, foldVillage(village));
    rowsByVillage.set(key, [...(rowsByVillage.get(key) ?? []), row]);
  }
  const exactKeys = new Set(villages.map(([province, district, village]) => place({ province, district }, foldVillage(village))));
  // PTT often drops a final "-köy" before "Köyü" (TÜİK's Çalköy is PTT's "Çal Köyü"); tried second,
  // and never onto another reference village's own name.
  const keyOf = (province: string, district: string, village: string): string | undefined => {
    const exact = place({ province, district }, foldVillage(village));
    if (rowsByVillage.has(exact)) return exact;
    const folded = foldVillage(village);
    if (!folded.endsWith('köy') || folded.length <= 3) return undefined;
    const shortened = place({ province, district }, folded.slice(0, -3));
    return rowsByVillage.has(shortened) && !exactKeys.has(shortened) ? shortened : undefined;
  };

  const disagreements: Disagreement[] = [];
  const claimed = new Set<string>();
  const villagesOnlyTheirs: string[] = [];
  let compared = 0;
  let equal = 0;
  let estimated = 0;
  for (const [province, district, village, postalCode, status] of villages) {
    const key = keyOf(province, district, village);
    if (key !== undefined) claimed.add(key);
    if (status === 'estimated') {
      estimated += 1;
      continue;
    }
    if (key === undefined) {
      villagesOnlyTheirs.push(place({ province, district }, village));
      continue;
    }
    for (const row of rowsByVillage.get(key) ?? []) {
      compared += 1;
      if (row.zipCode === postalCode) equal += 1;
      else disagreements.push({ key: place(row, row.name), ours: row.zipCode, theirs: `${postalCode} (village ${village})` });
    }
  }
  const villageRowsOnlyOurs = [...rowsByVillage].filter(([key]) => !claimed.has(key)).flatMap(([, rows]) => rows.map((row) => place(row, row.name)));
  return { compared, equal, estimated, villagesOnlyTheirs, villageRowsOnlyOurs, disagreements };
}

export const check: DataCheck = {
  name: 'postalCodes',
  async run(data, dataDir): Promise<CheckReport> {
    const reference = await readVillagesReference(dataDir);
    const addresses = await loadTurkeyAddresses(dataDir);
    const provinceName = new Map(addresses.provinces.map((province) => [province.plateCode, province.name]));
    const ptt = addresses.districts.flatMap((district) =>
      district.neighbourhoods.map((neighbourhood) => ({
        province: provinceName.get(district.plateCode) ?? district.plateCode,
        district: district.name,
        ...neighbourhood,
      })),
    );
    const ours: Row[] = servedTurkishNeighbourhoods(data).map((row) => ({ ...row, name: row.pttName }));
    const againstPtt = compareWithPtt(ours, ptt);
    const againstVillages = compareWithVillages(ours, reference.villages);

    return {
      name: 'postalCodes',
      reference:
        `PTT's postal code list as scraped on ${addresses.source.date} (${addresses.source.repository} ${addresses.source.commit.slice(0, 7)}); ` +
        `independently, ${reference.title} (${reference.repository} ${reference.commit.slice(0, 7)}, data of ${reference.datasetLastUpdated})`,
      figures: {
        servedRows: ours.length,
        pttRowsCompared: againstPtt.compared,
        pttPostalCodesEqual: ratio(againstPtt.equal, againstPtt.compared),
        pttRowsOnlyOurs: againstPtt.onlyOurs,
        pttRowsOnlyTheirs: againstPtt.onlyTheirs,
        villageRowsCompared: againstVillages.compared,
        villagePostalCodesEqual: ratio(againstVillages.equal, againstVillages.compared),
        villageRowsOnlyOurs: againstVillages.villageRowsOnlyOurs.length,
        villagesOnlyTheirs: againstVillages.villagesOnlyTheirs.length,
        villagesEstimatedSkipped: againstVillages.estimated,
      },
      targets: { pttPostalCodesEqual: 0.9995 },
      disagreements: [...againstPtt.disagreements, ...againstVillages.disagreements],
      detail: { villagesOnlyTheirs: againstVillages.villagesOnlyTheirs, villageRowsOnlyOurs: againstVillages.villageRowsOnlyOurs },
    };
  },
};
