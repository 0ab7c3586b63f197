/**
 * The list lookups' bodies: the records of each key tuple, in data order; an empty list for every
 * tuple of existing parents (and each year, each boolean) that has none; and, for a lookup with
 * names in several languages, a body per other language where its names differ.
 */
import { bodyPath, languageBodyKeys, type Route, type RouteParam } from '../../contract/routes.ts';
import { textIn } from '../records/translations.ts';
import type { DataRecord } from '../records/schemas.ts';
import { aliasesOf } from './ambiguity.ts';
import type { GroupFilter, Indexing } from './indexing.ts';

/** Parents' keys by the parents' records, then by field and kind: see parentKeys. */
const parentKeysOf = new WeakMap<readonly DataRecord[], Map<string, { readonly keys: string[]; readonly problems: string[] }>>();

/**
 * The keys of a list route's parents (every district's, for the places of each). In a rebuild
 * (`remember`), where they are the parents' own values (not derived from other records, not
 * filtered), they are worked out once for each list of parents: a rebuild makes its routes from the
 * data as it is and as it was, which share the parents of every type that did not change, and
 * several routes share their parents. A full build makes each route once and keeps nothing.
 */
function parentKeys(
  route: Route & { parent: NonNullable<Route['parent']> },
  param: RouteParam,
  { dataset, keys, problems }: Indexing,
  remember: boolean,
): string[] {
  const { record: parentType, field, where } = route.parent;
  const parents = dataset.records.get(parentType) ?? [];
  const own = remember && where === undefined && parents.every((parent) => field in parent);
  const cacheKey = `${field}\0${param.kind}`;
  const cached = own ? parentKeysOf.get(parents)?.get(cacheKey) : undefined;
  if (cached) {
    problems.push(...cached.problems);
    return cached.keys;
  }
  const before = problems.length;
  const found = parents
    .filter((parent) => where === undefined || keys.fieldValue(parentType, parent, where) === true)
    .flatMap((parent) => keys.keyOf(parentType, parent, param, keys.fieldValue(parentType, parent, field)) ?? []);
  if (own) {
    let byField = parentKeysOf.get(parents);
    if (byField === undefined) {
      byField = new Map();
      parentKeysOf.set(parents, byField);
    }
    byField.set(cacheKey, { keys: found, problems: problems.slice(before) });
  }
  return found;
}

/** Every key tuple a list route must answer, so that an existing parent with no children gets []. */
function requiredKeys(route: Route, indexing: Indexing, remember: boolean): string[][] {
  const { settings } = indexing;
  const domains = route.params.map((param, position): string[] | undefined => {
    if (position === 0 && route.parent) return parentKeys({ ...route, parent: route.parent }, param, indexing, remember);
    if (param.kind === 'year') {
      const { first, last } = settings.holidayYears;
      return Array.from({ length: last - first + 1 }, (_, offset) => String(first + offset));
    }
    if (param.kind === 'boolean') return ['true', 'false'];
    return undefined;
  });
  if (domains.some((domain) => domain === undefined)) return [];
  return domains.reduce<string[][]>((tuples, domain) => tuples.flatMap((tuple) => (domain ?? []).map((key) => [...tuple, key])), [[]]);
}

/**
 * A record's keys for each parameter: its own field's, then those of its alias fields' names (a
 * district's exonyms), each once; undefined when its own value has no key.
 */
function keysPerParam(route: Route, record: DataRecord, { keys }: Pick<Indexing, 'keys'>): string[][] | undefined {
  const perParam: string[][] = [];
  for (const param of route.params) {
    const own = keys.ownKey(route.record, record, param);
    if (own === undefined) return undefined;
    if (param.aliasFields === undefined || param.aliasFields.length === 0) {
      perParam.push([own]);
      continue;
    }
    const aliases = (param.aliasFields ?? []).flatMap((field) =>
      aliasesOf(record, field).flatMap(({ value }) => keys.keyOf(route.record, record, param, value, field) ?? []),
    );
    perParam.push([...new Set([own, ...aliases])]);
  }
  return perParam;
}

/** Every tuple of one key per parameter, joined as body paths join them. */
function tuplesOf(perParam: readonly (readonly string[])[]): string[] {
  // One key per parameter, as nearly every record has: one tuple, without the cross product's arrays.
  if (perParam.every((options) => options.length === 1)) return [perParam.map((options) => options[0] as string).join('/')];
  return perParam
    .reduce<string[][]>((tuples, options) => tuples.flatMap((tuple) => options.map((key) => [...tuple, key])), [[]])
    .map((tuple) => tuple.join('/'));
}

const oneKeyEach = new WeakMap<Route, boolean>();

/** Whether a record has one key per parameter of the route, and one tuple: no alias fields, no optional parameters. */
function takesOneKeyEach(route: Route): boolean {
  let one = oneKeyEach.get(route);
  if (one === undefined) {
    one = route.params.every((param) => !param.optional && (param.aliasFields ?? []).length === 0);
    oneKeyEach.set(route, one);
  }
  return one;
}

/**
 * A record's key tuples, joined: optional trailing parameters (a name's subdivisions, of one
 * country or of all) give a body for each number of keys a query may give, from the required ones
 * to all of them. None when its own value has no key.
 */
export function listTuples(route: Route, record: DataRecord, indexing: Pick<Indexing, 'keys'>): string[] {
  if (takesOneKeyEach(route)) {
    // One tuple: each parameter's own key, joined as tuplesOf joins them, without its arrays.
    let tuple = '';
    for (let position = 0; position < route.params.length; position++) {
      const key = indexing.keys.ownKey(route.record, record, route.params[position] as RouteParam);
      if (key === undefined) return [];
      tuple = position === 0 ? key : `${tuple}/${key}`;
    }
    return [tuple];
  }
  const perParam = keysPerParam(route, record, indexing);
  if (perParam === undefined) return [];
  const fewest = route.params.filter((param) => !param.optional).length;
  const tuples: string[] = [];
  for (let count = route.params.length; count >= fewest; count--) tuples.push(...tuplesOf(perParam.slice(0, count)));
  return tuples;
}

/** The records of a list route grouped by key tuple (those `only` admits); a record outside a required domain is a problem. */
function groupRecords(route: Route, records: readonly DataRecord[], indexing: Indexing, only?: GroupFilter): Map<string, DataRecord[]> {
  const { keys, problems } = indexing;
  const groups = new Map<string, DataRecord[]>();
  const required = requiredKeys(route, indexing, only !== undefined).map((tuple) => tuple.join('/'));
  for (const tuple of required) if (only === undefined || only(tuple)) groups.set(tuple, []);
  for (const record of records) {
    for (const tuple of listTuples(route, record, indexing)) {
      if (only !== undefined && !only(tuple)) continue;
      const group = groups.get(tuple);
      // A record whose name and alias fold alike is listed once.
      if (group) {
        if (group[group.length - 1] !== record) group.push(record);
      } else if (required.length > 0) {
        const fields = route.params.map((param) => param.field).join(' + ');
        problems.push(`${keys.whereIs(route.record, record)}: ${fields} ${tuple} is outside what ${route.path} serves (check data/build.json)`);
      } else groups.set(tuple, [record]);
    }
  }
  return groups;
}

export function indexList(route: Route, records: readonly DataRecord[], indexing: Indexing, only?: GroupFilter): void {
  const { projection, languages, bodies } = indexing;
  const { omit } = route;
  for (const [tuple, items] of groupRecords(route, records, indexing, only)) {
    const keys = tuple === '' ? [] : tuple.split('/');
    const body = `[${items.map((record) => projection.project(route.record, record, omit, route.reveal)).join(',')}]`;
    bodies.set(bodyPath(route, keys), body);
    const [parent] = keys;
    const named = route.languages;
    if (!named || parent === undefined) continue;
    for (const { tag, key } of languages.others(parent)) {
      const replaced = (record: DataRecord) => ({ field: named.field, value: textIn(record, named, tag) });
      const inLanguage = `[${items.map((record) => projection.show(route.record, record, omit, replaced(record))).join(',')}]`;
      // Where no name differs (a year without days), the own body answers for this language too.
      if (inLanguage !== body) bodies.set(bodyPath(route, languageBodyKeys(keys, key)), inLanguage);
    }
  }
}

/**
 * A lookup answered with another's bodies (routes.ts `aliasOf`): no bodies of its own, each parent's
 * key (a country's alpha-2 code) mapped to the key of its id, for the parents the route answers.
 */
export function indexAlias(route: Route, { dataset, keys, aliases }: Indexing): void {
  const [first] = route.params;
  if (!route.parent || !first) return;
  const { record: parentType, field, where } = route.parent;
  const mapped: Record<string, string> = {};
  for (const parent of dataset.records.get(parentType) ?? []) {
    if (where !== undefined && keys.fieldValue(parentType, parent, where) !== true) continue;
    const key = keys.keyOf(parentType, parent, first, keys.fieldValue(parentType, parent, field));
    if (key !== undefined) mapped[key] = parent.id;
  }
  aliases[route.path] = mapped;
}
