/**
 * A record's lookup keys: the value of a route parameter's field (its own, or one the lookup
 * derives), normalised as the proxy normalises a query (contract/keys.ts). A value that cannot be
 * looked up is a problem of the data, named with the record's place in data/records/.
 */
import { exampleIbanOf } from '../../contract/keys.ts';
import type { RecordType, RouteParam } from '../../contract/routes.ts';
import { keyOfValid, type DataRecord } from '../records/schemas.ts';
import type { Dataset } from '../validate.ts';

type DerivedField = (record: DataRecord) => unknown;

const byIdOf = new WeakMap<readonly DataRecord[], ReadonlyMap<unknown, DataRecord>>();
const none: readonly DataRecord[] = [];

/**
 * The records by id, made once for each list of records: a rebuild looks keys up in the data as it
 * is and as it was, which share the lists of every type that did not change (the world's districts).
 */
function byId(records: readonly DataRecord[] = none): ReadonlyMap<unknown, DataRecord> {
  let found = byIdOf.get(records);
  if (found === undefined) {
    found = new Map(records.map((record) => [record.id, record]));
    byIdOf.set(records, found);
  }
  return found;
}

/** Fields a lookup needs that the record does not carry itself. */
function derivedFields(dataset: Dataset): Partial<Record<RecordType, Record<string, DerivedField>>> {
  const stateProvinces = byId(dataset.records.get('stateProvince'));
  const districts = byId(dataset.records.get('district'));
  const countryIdOfDistrict = (district: DataRecord | undefined) => stateProvinces.get(String(district?.stateProvinceId))?.countryId;
  const countries = byId(dataset.records.get('country'));
  const yearOf: DerivedField = (day) => String(day.startDate).slice(0, 4);
  // Holidays and special days by country code: a day knows only its country's id.
  const countryCodeOf: DerivedField = (day) => countries.get(String(day.countryId))?.alpha2Code;
  // A subdivision's ISO 3166-2 code: its country's alpha-2 code and its own (DE-BY).
  const stateProvinceCode = (state: DataRecord | undefined) =>
    state === undefined ? undefined : `${countries.get(String(state.countryId))?.alpha2Code}-${String(state.abbreviation)}`;
  // The subdivisions a source gives days of their own: only they answer regional lookups.
  const withRegionalHolidays = new Set(
    ['stateProvinceHoliday' as const, 'stateProvinceSpecialDay' as const].flatMap((type) => dataset.records.get(type)?.map((day) => day.stateProvinceId) ?? []),
  );
  const regionalDay = { year: yearOf, stateProvinceCode: (day: DataRecord) => stateProvinceCode(stateProvinces.get(String(day.stateProvinceId))) };
  // A bank's IBAN lookup key comes from an IBAN of it, read as a client's is.
  const ibanOfBank: DerivedField = (bank) => exampleIbanOf(String(countries.get(String(bank.countryId))?.alpha2Code), String(bank.code));
  return {
    bank: { iban: ibanOfBank },
    // District getbyname is scoped by country; a district knows only its state or province.
    district: { countryId: countryIdOfDistrict },
    // Postal codes by country: a neighbourhood knows only its district.
    neighborhood: { countryId: (neighborhood) => countryIdOfDistrict(districts.get(String(neighborhood.districtId))) },
    stateProvince: { code: stateProvinceCode, regionalHolidays: (state) => withRegionalHolidays.has(state.id) },
    countryHoliday: { year: yearOf, countryCode: countryCodeOf },
    countrySpecialDay: { year: yearOf, countryCode: countryCodeOf },
    stateProvinceHoliday: regionalDay,
    stateProvinceSpecialDay: regionalDay,
    weekend: { countryCode: countryCodeOf },
  };
}

export class RecordKeys {
  readonly #derived: ReturnType<typeof derivedFields>;

  /** `problems` collects each value that cannot be looked up, in the order met. */
  constructor(
    private readonly dataset: Dataset,
    readonly problems: string[],
  ) {
    this.#derived = derivedFields(dataset);
  }

  /** A field's value: the record's own, or derived from other records (a district's country). */
  fieldValue(type: RecordType, record: DataRecord, field: string): unknown {
    return field in record ? record[field] : this.#derived[type]?.[field]?.(record);
  }

  /** The record as validate.ts named it: file, position and id. */
  whereIs(type: RecordType, record: DataRecord): string {
    return this.dataset.where(record) ?? `${type} ${record.id}`;
  }

  /** `value`'s key for `param`, or undefined (and a problem) when it has none; `field` is the one the value came from. */
  keyOf(type: RecordType, record: DataRecord, param: RouteParam, value: unknown, field = param.field): string | undefined {
    const result = keyOfValid(param.kind, value);
    if (result.ok) return result.key;
    this.problems.push(`${this.whereIs(type, record)}: field ${field}: "${String(value)}" cannot be looked up, expected ${result.expected}`);
    return undefined;
  }

  /** The key of the record's own value of `param`'s field. */
  ownKey(type: RecordType, record: DataRecord, param: RouteParam): string | undefined {
    return this.keyOf(type, record, param, this.fieldValue(type, record, param.field));
  }
}
