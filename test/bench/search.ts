/**
 * `npm run bench:search`: what a prefix search costs the proxy per request, beside a plain lookup,
 * measured side by side in one process on the build in dist/ (`npm run build` first):
 *
 *   lookup (reference)   a single lookup by name: keys normalised, its file found in the index
 *   search, answer file  a query whose answer the build wrote (a short, crowded prefix)
 *   search, candidates   a longer query: its candidates found, filtered and ranked (answers kept)
 *   …, cold              the same with every answer made anew (distinct queries, caches bypassed)
 *
 * Each is the proxy's work up to the body (not the socket), as a ratio to the reference.
 */
import os from 'node:os';
import path from 'node:path';
import { findRoute, type Route } from '../../contract/routes.ts';
import { findTarget } from '../../proxy/http/lookups.ts';
import { makeAnswer } from '../../proxy/http/search.ts';
import { openLocalStore } from '../../proxy/store/store.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 20_000);
const store = await openLocalStore(path.resolve(import.meta.dirname, '../../dist'));
const route = (pathname: string) => findRoute(pathname) as Route;
const address = '/addressmanagement/api';
const stateSearch = route(`${address}/stateprovince/searchbyname`);
const countrySearch = route(`${address}/country/searchbyname`);

async function time(label: string, calls: number, run: (index: number) => unknown): Promise<{ label: string; microseconds: number }> {
  for (let index = 0; index < 500; index++) await run(index);
  const started = process.hrtime.bigint();
  for (let index = 0; index < calls; index++) {
    const result = run(index);
    if (result instanceof Promise) await result;
  }
  return { label, microseconds: Number(process.hrtime.bigint() - started) / 1000 / calls };
}

const search = (searchRoute: Route, query: string) => {
  const target = findTarget(searchRoute, query, store);
  return target.search === undefined ? target : makeAnswer(store, target);
};
// Queries that reach candidates: three letters and more of real names; cold ones differ by a letter each call.
const longer = ['ista', 'anka', 'bavar', 'califo', 'ontar', 'queens', 'lomba', 'andal', 'texa', 'sao p'];
const countries = ['ger', 'fran', 'deuts', 'turq', 'almany', 'united k', 'suomi', 'nihon'];
const alphabet = 'abcdefghijklmnopqrstuvwxyz';
const results = [
  await time('lookup by name (reference)', rounds, (index) =>
    findTarget(route(`${address}/stateprovince/getbyname`), `name=${index % 2 ? 'istanbul' : 'ankara'}`, store),
  ),
  await time('search, answer file (stateprovince "ka")', rounds, () => search(stateSearch, 'name=ka')),
  await time('search, candidates (stateprovince)', rounds, (index) => search(stateSearch, `name=${longer[index % longer.length]}`)),
  await time('search, candidates (country)', rounds, (index) =>
    search(countrySearch, `name=${encodeURIComponent(countries[index % countries.length] as string)}`),
  ),
  await time('search, candidates, cold (country)', Math.min(rounds, 5000), (index) =>
    search(
      countrySearch,
      `name=${countries[index % countries.length]}${alphabet[Math.floor(index / countries.length) % 26]}${alphabet[Math.floor(index / 208) % 26]}`,
    ),
  ),
];
const reference = results[0]?.microseconds ?? 1;
console.log(`search cost per request, ${rounds} rounds, node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}`);
for (const { label, microseconds } of results) {
  console.log(`  ${label.padEnd(42)} ${microseconds.toFixed(2).padStart(8)} µs   ${(microseconds / reference).toFixed(1).padStart(6)} × reference`);
}
