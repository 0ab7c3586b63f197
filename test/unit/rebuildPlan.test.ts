/**
 * The rebuild planner's steps on tiny datasets (generator/plan/): what a route reads, worked out from
 * the route table and the record types' rows; what changed among a type's records; and what each
 * route makes of a change, including a route added to read another type, which no table names.
 */
import { describe, expect, it } from 'vitest';
import type { RecordType } from '../../contract/recordTypes.ts';
import { routes, type Route } from '../../contract/routes.ts';
import { diffRecords, sameSignatures, type Changed } from '../../generator/plan/changes.ts';
import { fieldsRead, readByPartitioned, typesRead } from '../../generator/plan/reads.ts';
import { planRoutes, spanningPart } from '../../generator/plan/routePlans.ts';
import type { DataRecord } from '../../generator/records/schemas.ts';
import type { Dataset } from '../../generator/validate.ts';

const route = (tail: string): Route => {
  const found = routes.find((candidate) => candidate.path.endsWith(tail));
  if (found === undefined) throw new Error(`no route ends with ${tail}`);
  return found;
};

const dataset = (records: Partial<Record<RecordType, DataRecord[]>>): Dataset => ({
  records: new Map(Object.entries(records) as [RecordType, DataRecord[]][]),
  where: () => undefined,
});

const germany = { id: '9b1c2d3e-0000-4000-8000-000000000001', alpha2Code: 'DE', name: 'Germany' };
const bavaria = { id: '9b1c2d3e-0000-4000-8000-000000000002', countryId: '9b1c2d3e-0000-4000-8000-000000000001', abbreviation: 'BY', name: 'Bayern' };
const munich = { id: '9b1c2d3e-0000-4000-8000-000000000003', stateProvinceId: '9b1c2d3e-0000-4000-8000-000000000002', name: 'München' };
const augsburg = { id: '9b1c2d3e-0000-4000-8000-000000000004', stateProvinceId: '9b1c2d3e-0000-4000-8000-000000000002', name: 'Augsburg' };

/** A state's route keyed by the districts' subdivision: it reads the districts, though no table says so. */
const byDistrictState: Route = {
  ...route('/stateprovince/getbycountryid'),
  path: '/addressmanagement/api/stateprovince/getbydistrictstate',
  params: [{ name: 'stateprovinceid', kind: 'uuid', field: 'id' }],
  parent: { record: 'district', field: 'stateProvinceId' },
};

describe('what a route reads', () => {
  it('is its derived fields’ reads: a district by name in a country reads each state’s country', () => {
    expect(fieldsRead(route('/district/getbyname'))).toEqual([{ type: 'stateProvince', fields: ['id', 'countryId'] }]);
    expect([...typesRead(route('/district/getbyname'))]).toEqual(['district', 'stateProvince']);
  });

  it("is its parent's key, and what the parent's condition derives from", () => {
    expect(typesRead(route('/stateprovinceholiday/getbystateprovincecode'))).toEqual(
      new Set(['stateProvinceHoliday', 'stateProvince', 'country', 'stateProvinceSpecialDay']),
    );
    expect([...typesRead(byDistrictState)]).toEqual(['stateProvince', 'district']);
  });

  it('is the types its module reads for a document made from several (a work calendar): not the addresses', () => {
    const calendar = typesRead(route('/workcalendar/getbycountrycode'));
    expect(calendar).toContain('stateProvinceHoliday');
    expect(calendar).toContain('weekend');
    expect(calendar).not.toContain('neighborhood');
    expect(calendar).not.toContain('district');
  });

  it('of the types made whole, by the partitioned routes and their gates: a country’s code, a state’s country', () => {
    expect(readByPartitioned(routes)).toEqual(
      new Map([
        ['stateProvince', ['id', 'countryId']],
        ['country', ['id', 'alpha2Code']],
      ]),
    );
  });
});

describe('what changed', () => {
  it('is the records that differ, or all of a file whose common records moved', () => {
    const renamed = { ...augsburg, name: 'Augsburg Nord' };
    expect(diffRecords([munich, augsburg], [munich, renamed], false)).toEqual({ before: [augsburg], after: [renamed] });
    expect(diffRecords([munich, augsburg], [augsburg, munich], false)).toEqual({ before: [munich, augsburg], after: [augsburg, munich] });
    expect(diffRecords([munich], [munich], true)).toEqual({ before: [munich], after: [munich] });
  });

  it('keeps its signature while the fields read stay: a renamed state, not a moved one', () => {
    expect(sameSignatures({ before: [bavaria], after: [{ ...bavaria, name: 'Bavaria' }] }, ['id', 'countryId'])).toBe(true);
    expect(sameSignatures({ before: [bavaria], after: [{ ...bavaria, countryId: '9b1c2d3e-0000-4000-8000-000000000005' }] }, ['id', 'countryId'])).toBe(false);
    expect(sameSignatures({ before: [], after: [bavaria] }, ['id', 'countryId'])).toBe(false);
  });
});

describe('what each route makes', () => {
  const before = dataset({ country: [germany], stateProvince: [bavaria], district: [munich] });
  const after = dataset({ country: [germany], stateProvince: [bavaria], district: [munich, augsburg] });
  const changed = new Map<RecordType, Changed>([['district', { before: [], after: [augsburg] }]]);

  it('remakes a route added to read another type when that type changes, and leaves one that does not read it', () => {
    const planned = planRoutes({ routes: [...routes, byDistrictState], dataset: after, before, changed, readBefore: new Set() });
    if (planned.kind !== 'planned') throw new Error(JSON.stringify(planned));
    expect(planned.plans.get(byDistrictState.path)).toEqual({ make: 'all' });
    expect(planned.plans.get(route('/stateprovince/getbycountryid').path)).toEqual({ make: 'none' });
    expect(planned.plans.get(route('/district/getbyid').path)).toMatchObject({ make: 'groups', records: [augsburg] });
    expect(planned.plans.get(route('/workcalendar/getbycountrycode').path)).toEqual({ make: 'none' });
  });

  it('is a full build, with its reason, when a field the partitioned routes read of another type changes', () => {
    const moved = { ...bavaria, countryId: '9b1c2d3e-0000-4000-8000-000000000005' };
    const planned = planRoutes({
      routes,
      dataset: dataset({ country: [germany], stateProvince: [moved], district: [munich] }),
      before,
      changed: new Map([['stateProvince', { before: [bavaria], after: [moved] }]]),
      readBefore: new Set([bavaria]),
    });
    expect(planned).toEqual({ kind: 'full', reason: 'a stateProvince record changed its id or countryId, or was added or removed' });
  });

  it('cuts a postal-code route to the groups that span countries', () => {
    const zip = route('/neighborhood/getbyzipcode');
    expect(spanningPart(zip, ['id', 'districtId', 'countryId'])?.params.map((param) => param.field)).toEqual(['zipCode']);
    expect(spanningPart(route('/district/getbyname'), ['id', 'stateProvinceId', 'countryId'])).toBeUndefined();
  });
});
