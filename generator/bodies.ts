/**
 * Index: every possible lookup response, computed from the validated dataset and the route table.
 * The result maps a body file's path (relative to dist/) to the body's JSON text.
 */
import { normaliseKey } from '../contract/keys.ts';
import { bodyPath, languageBodyKeys, recordLabels, type Route, type RouteParam, type RecordType } from '../contract/routes.ts';
import type { Manifest } from '../contract/manifest.ts';
import { BuildError } from './errors.ts';
import { ParentLanguages, textIn } from './languages.ts';
import { shownFields, type BuildSettings, type DataRecord } from './schemas.ts';
import type { Dataset } from './validate.ts';

export interface IndexedBodies {
  readonly bodies: ReadonlyMap<string, string>;
  readonly ambiguous: Manifest['ambiguous'];
  readonly languages: Manifest['languages'];
  /** A record as the API shows it, as its bodies hold it: the exports' lines, without stringifying every record again. */
  readonly shown: (type: RecordType, record: DataRecord) => string;
}

type DerivedField = (record: DataRecord) => unknown;

/** Fields a lookup needs that the record does not carry itself. */
function derivedFields(dataset: Dataset): Partial<Record<RecordType, Record<string, DerivedField>>> {
  const stateProvinces = new Map(dataset.records.get('stateProvince')?.map((state) => [state.id, state]));
  const yearOf: DerivedField = (day) => String(day.startDate).slice(0, 4);
  return {
    // District getbyname is scoped by country; a district knows only its state or province.
    district: { countryId: (district) => stateProvinces.get(String(district.stateProvinceId))?.countryId },
    countryHoliday: { year: yearOf },
    countrySpecialDay: { year: yearOf },
  };
}

/**
 * A candidate for a single lookup: tier 0 matched by its own field, 1 by its first alias field, 2 by
 * the next…; within a tier, the greater weight wins (how many CLDR locales use a localized name).
 */
interface Candidate {
  readonly record: DataRecord;
  readonly tier: number;
  readonly weight: number;
}

/** An alias field's names: plain strings (weight 1), or `{name, locales}` weighed by their locales. */
function aliasesOf(record: DataRecord, field: string): { value: unknown; weight: number }[] {
  const values = (record[field] as unknown[] | undefined) ?? [];
  return values.map((value) =>
    typeof value === 'object' && value !== null && 'name' in value
      ? { value: value.name, weight: 'locales' in value && Array.isArray(value.locales) ? value.locales.length : 1 }
      : { value, weight: 1 },
  );
}

/** The ambiguity rule's order: lower tier first, then greater weight; sort() keeps data order for ties. */
const rank = (a: Candidate, b: Candidate): number => a.tier - b.tier || b.weight - a.weight;

export function indexData(dataset: Dataset, settings: BuildSettings, routes: readonly Route[]): IndexedBodies {
  const derived = derivedFields(dataset);
  const problems: string[] = [];
  const bodies = new Map<string, string>();
  const ambiguous: Manifest['ambiguous'] = [];
  const projections = new Map<string, Map<DataRecord, string>>();

  const fieldValue = (type: RecordType, record: DataRecord, field: string): unknown => (field in record ? record[field] : derived[type]?.[field]?.(record));

  /** The record as validate.ts named it: file, position and id. */
  const whereIs = (type: RecordType, record: DataRecord): string => dataset.where.get(record) ?? `${type} ${record.id}`;

  /** `field` is the one the value came from: the parameter's, or its alias field. */
  const keyOf = (type: RecordType, record: DataRecord, param: RouteParam, value: unknown, field = param.field): string | undefined => {
    const result = normaliseKey(param.kind, String(value));
    if (result.ok) return result.key;
    problems.push(`${whereIs(type, record)}: field ${field}: "${String(value)}" cannot be looked up, expected ${result.expected}`);
    return undefined;
  };

  /** The record as the API shows it: hidden fields and the route's omitted fields left out; `text` replaces one field's value. */
  const show = (type: RecordType, record: DataRecord, omit: readonly string[], text?: { field: string; value: unknown }): string =>
    JSON.stringify(
      Object.fromEntries(
        shownFields(type, omit)
          .filter((field) => field in record)
          .map((field) => [field, field === text?.field ? text.value : record[field]]),
      ),
    );
  const project = (type: RecordType, record: DataRecord, omit: readonly string[]): string => {
    const cacheKey = `${type}:${omit.join(',')}`;
    let cache = projections.get(cacheKey);
    if (!cache) {
      cache = new Map();
      projections.set(cacheKey, cache);
    }
    let json = cache.get(record);
    if (json === undefined) {
      json = show(type, record, omit);
      cache.set(record, json);
    }
    return json;
  };

  /** The languages of every parent of a route with names in several, gathered before any body is written. */
  const languages = new ParentLanguages();
  for (const route of routes) {
    const [first] = route.params;
    if (!route.languages || !first) continue;
    for (const record of dataset.records.get(route.record) ?? []) {
      const parent = keyOf(route.record, record, first, fieldValue(route.record, record, first.field));
      if (parent !== undefined) languages.add(parent, record, route.languages);
    }
  }
  problems.push(...languages.problems());

  /** Every key tuple a list route must answer, so that an existing parent with no children gets []. */
  const requiredKeys = (route: Route): string[][] => {
    const domains = route.params.map((param, position): string[] | undefined => {
      if (position === 0 && route.parent) {
        const { record: parentType, field } = route.parent;
        return (dataset.records.get(parentType) ?? []).flatMap((parent) => keyOf(parentType, parent, param, parent[field]) ?? []);
      }
      if (param.kind === 'year') {
        const { first, last } = settings.holidayYears;
        return Array.from({ length: last - first + 1 }, (_, offset) => String(first + offset));
      }
      if (param.kind === 'boolean') return ['true', 'false'];
      return undefined;
    });
    if (domains.some((domain) => domain === undefined)) return [];
    return domains.reduce<string[][]>((tuples, domain) => tuples.flatMap((tuple) => (domain ?? []).map((key) => [...tuple, key])), [[]]);
  };

  const indexList = (route: Route, records: readonly DataRecord[]): void => {
    const omit = route.omit ?? [];
    const groups = new Map<string, DataRecord[]>();
    const required = requiredKeys(route).map((keys) => keys.join('/'));
    for (const tuple of required) groups.set(tuple, []);
    for (const record of records) {
      const keys = route.params.map((param) => keyOf(route.record, record, param, fieldValue(route.record, record, param.field)));
      if (keys.some((key) => key === undefined)) continue;
      const tuple = keys.join('/');
      const group = groups.get(tuple);
      if (group) group.push(record);
      else if (required.length > 0) {
        const fields = route.params.map((param) => param.field).join(' + ');
        problems.push(`${whereIs(route.record, record)}: ${fields} ${tuple} is outside what ${route.path} serves (check data/build.json)`);
      } else groups.set(tuple, [record]);
    }
    for (const [tuple, items] of groups) {
      const keys = tuple === '' ? [] : tuple.split('/');
      const body = `[${items.map((record) => project(route.record, record, omit)).join(',')}]`;
      bodies.set(bodyPath(route, keys), body);
      const [parent] = keys;
      const named = route.languages;
      if (!named || parent === undefined) continue;
      for (const { tag, key } of languages.others(parent)) {
        const inLanguage = `[${items.map((record) => show(route.record, record, omit, { field: named.field, value: textIn(record, named, tag) })).join(',')}]`;
        // Where no name differs (a year without days), the own body answers for this language too.
        if (inLanguage !== body) bodies.set(bodyPath(route, languageBodyKeys(keys, key)), inLanguage);
      }
    }
  };

  const indexSingle = (route: Route, records: readonly DataRecord[]): void => {
    const candidates = new Map<string, Candidate[]>();
    for (const record of records) {
      const perParam = route.params.map((param) => {
        const own = { value: fieldValue(route.record, record, param.field), tier: 0, weight: 1, field: param.field };
        const aliases = (param.aliasFields ?? []).flatMap((field, position) =>
          aliasesOf(record, field).map(({ value, weight }) => ({ value, tier: position + 1, weight, field })),
        );
        return [own, ...aliases].flatMap(({ value, tier, weight, field }) => {
          const key = keyOf(route.record, record, param, value, field);
          return key === undefined ? [] : [{ key, tier, weight }];
        });
      });
      const tuples = perParam.reduce<{ keys: string[]; tier: number; weight: number }[]>(
        (partial, options) =>
          partial.flatMap((tuple) =>
            options.map(({ key, tier, weight }) => ({ keys: [...tuple.keys, key], tier: Math.max(tuple.tier, tier), weight: Math.min(tuple.weight, weight) })),
          ),
        [{ keys: [], tier: 0, weight: Number.POSITIVE_INFINITY }],
      );
      for (const { keys, tier, weight } of tuples) {
        const tuple = keys.join('/');
        const list = candidates.get(tuple) ?? [];
        // A record found twice under one key (two spellings that fold alike) counts once, at its best.
        const known = list.findIndex((candidate) => candidate.record === record);
        const candidate = { record, tier, weight };
        if (known === -1) list.push(candidate);
        else if (rank(candidate, list[known] as Candidate) < 0) list[known] = candidate;
        candidates.set(tuple, list);
      }
    }
    for (const [tuple, list] of candidates) {
      // The documented rule: a record's own name beats another's alternative name, which beats another's
      // name in another language, the one more CLDR locales use first; then the first in data order.
      const ranked = [...list].sort(rank);
      const [chosen, ...others] = ranked;
      if (!chosen) continue;
      const file = bodyPath(route, tuple.split('/'));
      bodies.set(file, project(route.record, chosen.record, route.omit ?? []));
      if (others.length > 0) ambiguous.push({ file, chosen: chosen.record.id, others: others.map(({ record }) => record.id) });
    }
  };

  for (const route of routes) {
    const records = dataset.records.get(route.record) ?? [];
    if (route.shape === 'list') indexList(route, records);
    else indexSingle(route, records);
  }
  if (problems.length > 0) throw new BuildError(problems);
  return { bodies, ambiguous, languages: languages.toManifest(), shown: (type, record) => project(type, record, []) };
}

/** Records per record type, for the manifest. */
export function countRecords(dataset: Dataset): Record<string, number> {
  return Object.fromEntries(Object.keys(recordLabels).map((type) => [type, dataset.records.get(type as RecordType)?.length ?? 0]));
}
