import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordDefinitions } from '../../generator/records/recordTypes.ts';
import { bodyPath, findRoute, routes, type RecordType } from '../../contract/routes.ts';
import { repoRoot } from '../support/service.ts';

/** Part 4 of the spec (copied into test/fixtures/facts), one row per operation: path, parameter names, whether it returns a list. */
function specOperations(): { path: string; params: string[]; list: boolean }[] {
  const endpoints = readFileSync(path.resolve(repoRoot, 'test/fixtures/facts/spec-operations.md'), 'utf8');
  return [...endpoints.matchAll(/^\| `(\/[a-z0-9/]+)` \| ([^|]+) \| ([^|]+) \|$/gm)].map(([, path = '', params = '', returns = '']) => ({
    path,
    params: [...params.matchAll(/`(\w+)` \(/g)].map(([, name = '']) => name),
    list: returns.trim().startsWith('list of'),
  }));
}

describe('the route table', () => {
  const operations = specOperations();
  const specified = routes.filter((route) => !route.extension);

  it('holds exactly the 44 operations of the spec, with their exact parameter names', () => {
    expect(operations).toHaveLength(44);
    expect(specified.map((route) => route.path).sort()).toEqual(operations.map((operation) => operation.path).sort());
    for (const operation of operations) {
      const route = specified.find((candidate) => candidate.path === operation.path);
      expect(route?.params.map((param) => param.name).sort(), operation.path).toEqual([...operation.params].sort());
    }
  });

  it('answers lists where the spec returns lists and single records elsewhere', () => {
    for (const operation of operations) {
      expect(findRoute(operation.path)?.shape, operation.path).toBe(operation.list ? 'list' : 'single');
    }
  });

  it('marks the operations the spec lacks as extensions, each saying why', () => {
    expect(routes.filter((route) => route.extension).map((route) => route.path)).toEqual([
      '/financemanagement/api/bank/getbyiban',
      '/addressmanagement/api/country/searchbyname',
      '/addressmanagement/api/stateprovince/searchbyname',
      '/addressmanagement/api/stateprovince/getallbyname',
      '/addressmanagement/api/district/searchbyname',
      '/addressmanagement/api/district/getallbyname',
      '/addressmanagement/api/neighborhood/getbyid',
      '/addressmanagement/api/neighborhood/getplacesbydistrictid',
      '/addressmanagement/api/neighborhood/searchbyname',
      '/addressmanagement/api/neighborhood/getbyzipcode',
      '/addressmanagement/api/timezone/getall',
      '/addressmanagement/api/timezone/getbyid',
      '/addressmanagement/api/countryholiday/getbycountrycode',
      '/addressmanagement/api/countryspecialday/getbycountrycode',
      '/addressmanagement/api/stateprovinceholiday/getbystateprovinceid',
      '/addressmanagement/api/stateprovinceholiday/getbystateprovincecode',
      '/addressmanagement/api/stateprovincespecialday/getbystateprovinceid',
      '/addressmanagement/api/stateprovincespecialday/getbystateprovincecode',
      '/addressmanagement/api/weekend/getbycountrycode',
      '/addressmanagement/api/workcalendar/getbycountrycode',
    ]);
    for (const route of routes) if (route.extension !== undefined) expect(route.extension.length, route.path).toBeGreaterThan(20);
  });

  it('marks the parameters the spec lacks as extensions, each optional and saying why', () => {
    const extended = routes.flatMap((route) => route.params.filter((param) => param.extension !== undefined).map((param) => [route.path, param] as const));
    expect(extended.map(([path, param]) => `${path} ${param.name}`)).toEqual(['/addressmanagement/api/neighborhood/getbyzipcode countryId']);
    for (const [path, param] of extended) {
      expect(param.optional, path).toBe(true);
      expect(param.extension?.length, path).toBeGreaterThan(20);
    }
  });

  it('looks parameters up in fields the records have', () => {
    const derived = new Set([
      'district.countryId',
      'neighborhood.countryId',
      'countryHoliday.year',
      'countrySpecialDay.year',
      'countryHoliday.countryCode',
      'countrySpecialDay.countryCode',
      'stateProvinceHoliday.year',
      'stateProvinceHoliday.stateProvinceCode',
      'stateProvinceSpecialDay.year',
      'stateProvinceSpecialDay.stateProvinceCode',
      'weekend.countryCode',
      'stateProvince.code',
      'stateProvince.regionalHolidays',
      'bank.iban',
    ]);
    const has = (type: RecordType, field: string) => Object.keys(recordDefinitions[type].schema.shape).includes(field) || derived.has(`${type}.${field}`);
    for (const route of routes) {
      // A document's keys are its country's code, a year and a subdivision's code (generator/bodies/calendars.ts).
      const params = route.document ? route.params.filter((param) => param.kind !== 'year') : route.params;
      for (const param of params) {
        const type = param.names ?? route.record;
        expect(has(type, param.field), `${route.path} ${param.name}`).toBe(true);
      }
      if (route.parent) expect(has(route.parent.record, route.parent.field), route.path).toBe(true);
      if (route.parent?.where) expect(has(route.parent.record, route.parent.where), route.path).toBe(true);
    }
  });

  it('finds routes whatever the letter case, with or without a trailing slash', () => {
    expect(findRoute('/AddressManagement/api/Country/GetByAlpha2Code')?.path).toBe('/addressmanagement/api/country/getbyalpha2code');
    expect(findRoute('/financemanagement/api/currency/getall/')?.path).toBe('/financemanagement/api/currency/getall');
    expect(findRoute('/financemanagement/api/currency')).toBeUndefined();
  });

  it('places bodies under the route path, one segment per key', () => {
    const route = findRoute('/addressmanagement/api/countryholiday/getbycountryid');
    expect(route && bodyPath(route, ['0a1b', '2024'])).toBe('addressmanagement/api/countryholiday/getbycountryid/0a1b/2024.json');
    const all = findRoute('/addressmanagement/api/country/getall');
    expect(all && bodyPath(all, [])).toBe('addressmanagement/api/country/getall.json');
  });
});
