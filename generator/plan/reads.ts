/**
 * What a route's bodies are made from, worked out from the route table (contract/routes.ts) and the
 * record types' rows (generator/records/recordTypes.ts), never written by hand: its own record
 * type, every field its parameters and its parent derive from other records (each derivation
 * declares what it reads), and its parent's key. A body computed from several types (a work
 * calendar) reads the types its module lists. A rebuild remakes a route's bodies when anything it reads changed,
 * so a new route, or a new derived field, is planned right without a line here.
 */
import { isRecordType, recordTypes, type RecordType } from '../../contract/recordTypes.ts';
import type { Route } from '../../contract/routes.ts';
import { workCalendarReads } from '../bodies/calendars.ts';
import { typeNameOf } from '../load.ts';
import { recordDefinitions, type Partitioned, type TypeFields } from '../records/recordTypes.ts';

/** How a type's routes are planned group by group, or undefined where they are made whole. */
export const partitionOf = (type: RecordType): Partitioned | undefined => recordDefinitions[type].partitioned;

/** The record type of a partitioned type's file, or undefined for a file of a type made whole. */
export function partitionedTypeOf(file: string): RecordType | undefined {
  const type = typeNameOf(file);
  return isRecordType(type) && partitionOf(type) !== undefined ? type : undefined;
}

/** What a derived field of `type` reads of other records; nothing for a field the record carries. */
const readsOfField = (type: RecordType, field: string): readonly TypeFields[] => recordDefinitions[type].derived?.[field]?.reads ?? [];

/** The fields a route reads of other record types: what its derived fields read, and its parent's key and condition. */
export function fieldsRead(route: Route): readonly TypeFields[] {
  const reads = route.params.flatMap((param) => readsOfField(route.record, param.field));
  const { parent } = route;
  if (parent === undefined) return reads;
  const parentKey: TypeFields = { type: parent.record, fields: ['id', parent.field] };
  const condition = parent.where === undefined ? [] : [{ type: parent.record, fields: [parent.where] }, ...readsOfField(parent.record, parent.where)];
  return [...reads, parentKey, ...readsOfField(parent.record, parent.field), ...condition];
}

/** The record types a route's bodies are made from: its own and every type it reads; a document's, those its module reads. */
export function typesRead(route: Route): ReadonlySet<RecordType> {
  if (route.document === 'workCalendar') return new Set(workCalendarReads);
  if (route.document !== undefined) return new Set(recordTypes);
  return new Set([route.record, ...fieldsRead(route).map(({ type }) => type)]);
}

/**
 * The fields of the types made whole that the partitioned routes read, or their gates: a change to
 * one may move records between those routes' groups or countries, which a plan by groups cannot
 * follow. The partitioned types' own links (a neighbourhood's district) the plan follows itself.
 */
export function readByPartitioned(routes: readonly Route[]): ReadonlyMap<RecordType, readonly string[]> {
  const fields = new Map<RecordType, Set<string>>();
  const partitionedTypes = new Set(recordTypes.filter((type) => partitionOf(type) !== undefined));
  const reads = [
    ...routes.filter((route) => partitionedTypes.has(route.record)).flatMap(fieldsRead),
    ...[...partitionedTypes].flatMap((type) => partitionOf(type)?.gatedBy ?? []),
  ];
  for (const { type, fields: read } of reads) {
    if (partitionedTypes.has(type)) continue;
    const known = fields.get(type) ?? new Set<string>();
    for (const field of read) known.add(field);
    fields.set(type, known);
  }
  return new Map([...fields].map(([type, read]) => [type, [...read]]));
}
