/**
 * The example value of every lookup parameter in the OpenAPI document (document.ts): a real key of
 * this build, so that "Try it out" on /docs, prefilled with it, finds something, and a client
 * author sees a value that works. Nothing is written down: each build picks its examples from its
 * own validated records, by the rules below.
 *
 * Türkiye first, for the service's first users: its country (TR), its currency (TRY), İstanbul
 * (plate code 34) and the records linked to them, found by codes and references, never by an id.
 * Where a rule finds nothing, the type's first record in data order is the example; so a data
 * change can move an example, never leave one pointing at nothing.
 */
import { exampleIbanOf } from '../../contract/keys.ts';
import type { RecordType, Route } from '../../contract/routes.ts';
import { recordDefinitions } from '../records/recordTypes.ts';
import type { DataRecord } from '../records/schemas.ts';
import type { Dataset } from '../validate.ts';

export type ExampleValue = string | number | boolean;

/** The example of a lookup's parameter at `position`; undefined when the build has no record to take it from. */
export type ParameterExamples = (route: Route, position: number) => ExampleValue | undefined;

export interface ExampleOptions {
  readonly holidayYears: { readonly first: number; readonly last: number };
  /** The year the build runs in: the year example, moved into holidayYears when outside it. */
  readonly currentYear: number;
}

/** The record each type's examples come from: the first in data order its rule admits, else its first. */
export function exampleRecords(dataset: Dataset): (type: RecordType) => DataRecord | undefined {
  const recordsOf = (type: RecordType): readonly DataRecord[] => dataset.records.get(type) ?? [];
  const chosen = new Map<RecordType, DataRecord | undefined>();
  const resolving = new Set<RecordType>();

  const example = (type: RecordType): DataRecord | undefined => {
    if (chosen.has(type)) return chosen.get(type);
    if (resolving.has(type)) throw new Error(`the example rules find ${type} through itself: ${[...resolving].join(' → ')}`);
    resolving.add(type);
    const rule = recordDefinitions[type].example;
    const records = recordsOf(type);
    const record = (rule && records.find((candidate) => rule(candidate, example))) ?? records[0];
    resolving.delete(type);
    chosen.set(type, record);
    return record;
  };
  return example;
}

export function pickExamples(dataset: Dataset, { holidayYears, currentYear }: ExampleOptions): ParameterExamples {
  const recordsOf = (type: RecordType): readonly DataRecord[] => dataset.records.get(type) ?? [];
  const example = exampleRecords(dataset);

  /**
   * A record's field, or one it reaches through its references when it has no such field: a
   * district's countryId is its state or province's (as bodies.ts derives it for district getbyname).
   */
  const fieldOf = (type: RecordType, record: DataRecord, field: string): unknown => {
    if (field in record) return record[field];
    for (const { field: via, to, toField = 'id' } of recordDefinitions[type].references) {
      const target = recordsOf(to).find((candidate) => candidate[toField] === record[via]);
      const value = target && fieldOf(to, target, field);
      if (value !== undefined) return value;
    }
    return undefined;
  };

  const year = Math.min(Math.max(currentYear, holidayYears.first), holidayYears.last);

  /**
   * A subdivision with holidays of its own, for the regional lookups (İstanbul has none): Bavaria,
   * the one their users know best, else the first such subdivision.
   */
  const regionalState = (): DataRecord | undefined => {
    const withDays = new Set(recordsOf('stateProvinceHoliday').map((day) => day.stateProvinceId));
    const germany = recordsOf('country').find((country) => country.alpha2Code === 'DE');
    const states = recordsOf('stateProvince').filter((state) => withDays.has(state.id));
    return states.find((state) => state.countryId === germany?.id && state.abbreviation === 'BY') ?? states[0];
  };
  /** A subdivision's ISO 3166-2 code, as the regional lookups derive it (generator/bodies/recordKeys.ts). */
  const stateCodeOf = (state: DataRecord): string | undefined => {
    const country = recordsOf('country').find((candidate) => candidate.id === state.countryId);
    return country === undefined ? undefined : `${String(country.alpha2Code)}-${String(state.abbreviation)}`;
  };

  return (route, position) => {
    const param = route.params[position];
    if (!param) return undefined;
    if (param.kind === 'year') return year;
    if (param.kind === 'iban') {
      const bank = example('bank');
      const country = bank && recordsOf('country').find((candidate) => candidate.id === bank.countryId);
      return bank && country ? exampleIbanOf(String(country.alpha2Code), String(bank.code)) : undefined;
    }
    if (param.optional) return undefined;
    if (position === 0 && route.parent?.where !== undefined) {
      const state = regionalState();
      return state === undefined ? undefined : route.parent.field === 'code' ? stateCodeOf(state) : state.id;
    }
    // A list keyed by another record takes the first value from that record (a country's id for its banks).
    const [type, field] = position === 0 && route.parent ? [route.parent.record, route.parent.field] : [route.record, param.field];
    const record = example(type);
    // Every value of one lookup comes from one record, so that together they find it.
    const value = record && fieldOf(type, record, field);
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : undefined;
  };
}
