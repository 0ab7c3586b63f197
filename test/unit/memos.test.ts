/**
 * The memos on every request's path are plain maps: bounded, and never wrong when full.
 */
import { describe, expect, it } from 'vitest';
import { computeEtag } from '../../contract/manifest.ts';
import type { Route } from '../../contract/routes.ts';
import { acceptedTokenCount, createAuthenticator } from '../../proxy/auth/authenticate.ts';
import { loadConfig } from '../../proxy/config/config.ts';
import { chooseEncoding, listHeaderBounds, matchesIfNoneMatch } from '../../proxy/http/negotiation.ts';
import { maxRememberedTarget, rememberedTargets, TargetMemo, type ResolvedTarget } from '../../proxy/http/targets.ts';
import type { BodyStore } from '../../proxy/store/store.ts';

const store = (): BodyStore => ({}) as BodyStore;
/** A target resolved to body `file`, whose ETag is that of its name (a distinct body per name). */
const resolved = (file: string): ResolvedTarget => ({
  route: {} as Route,
  found: { file, entry: { size: file.length, etag: computeEtag(Buffer.from(file)) } },
});

/** A target resolved as a request would: asked for, found in the memo or resolved and offered to it. */
const ask = (memo: TargetMemo, build: BodyStore, target: string, file: string): ResolvedTarget =>
  memo.get(build, target) ?? memo.remember(target, resolved(file));

describe('the resolved targets', () => {
  it('are remembered per build, from the second time their body is asked for: a new build forgets them all', () => {
    const memo = new TargetMemo();
    const first = store();
    expect(memo.get(first, '/a')).toBeUndefined();
    memo.remember('/a', resolved('a.json'));
    expect(memo.get(first, '/a')).toBeUndefined();
    memo.remember('/a', resolved('a.json'));
    expect(memo.get(first, '/a')?.found.file).toBe('a.json');
    expect(memo.get(store(), '/a')).toBeUndefined();
    expect(memo.get(first, '/a')).toBeUndefined();
  });

  it(`are at most ${rememberedTargets}: the oldest go first, the newest stay`, () => {
    const memo = new TargetMemo();
    const build = store();
    memo.get(build, '/');
    for (let index = 0; index < rememberedTargets + 1; index++) for (const _time of [1, 2]) memo.remember(`/t${index}`, resolved(`${index}.json`));
    const kept = Array.from({ length: rememberedTargets + 1 }, (_, index) => index).filter((index) => memo.get(build, `/t${index}`) !== undefined);
    expect(kept.length).toBeLessThanOrEqual(rememberedTargets);
    expect(kept.length).toBeGreaterThanOrEqual(rememberedTargets / 2);
    expect(kept).not.toContain(0);
    // The newest ones all stay, in one run of them.
    expect(kept.at(-1)).toBe(rememberedTargets);
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, offset) => rememberedTargets + 1 - kept.length + offset));
  });

  it('keep a target asked for again, however many new ones come after it', () => {
    const memo = new TargetMemo();
    const build = store();
    memo.get(build, '/');
    for (const _time of [1, 2]) ask(memo, build, '/popular', 'popular.json');
    for (let index = 0; index < rememberedTargets * 3; index++) {
      for (const _time of [1, 2]) ask(memo, build, `/t${index}`, `${index}.json`);
      if (index % 1000 === 0) expect(memo.get(build, '/popular')?.found.file, `after ${index} others`).toBe('popular.json');
    }
    expect(memo.get(build, '/t0')).toBeUndefined();
  });

  it('leave out targets asked for once each, however many: lookups spread over a whole build make no churn', () => {
    const memo = new TargetMemo();
    const build = store();
    memo.get(build, '/');
    for (let index = 0; index < rememberedTargets * 3; index++) ask(memo, build, `/once${index}`, `once${index}.json`);
    const kept = Array.from({ length: rememberedTargets * 3 }, (_, index) => index).filter((index) => memo.get(build, `/once${index}`) !== undefined);
    // Two ETags that share a bit of the doorkeeper let the second in early: a few, never most.
    expect(kept.length).toBeLessThan(rememberedTargets * 0.3);
    // A target asked for again, after all of them, is remembered from then on.
    ask(memo, build, '/once0', 'once0.json');
    ask(memo, build, '/once0', 'once0.json');
    expect(memo.get(build, '/once0')?.found.file).toBe('once0.json');
  });

  it(`leave out targets longer than ${maxRememberedTarget} characters`, () => {
    const memo = new TargetMemo();
    const build = store();
    memo.get(build, '/');
    const long = `/x?name=${'a'.repeat(maxRememberedTarget)}`;
    expect(memo.remember(long, resolved('long.json')).found.file).toBe('long.json');
    expect(memo.get(build, long)).toBeUndefined();
  });
});

describe('the accepted API keys', () => {
  it('are remembered by the token, however the header spells it, so no spelling makes room or pushes another key out', async () => {
    const key = 'a-test-key-of-sufficient-length';
    const other = 'another-key-of-sufficient-length';
    const authenticate = await createAuthenticator({ auth: loadConfig({ API_KEYS: `${key},${other}` }).auth });
    expect(authenticate.remembered(key)).toBeUndefined();
    const principal = authenticate(`Bearer ${key}`);
    const otherPrincipal = authenticate(`Bearer ${other}`);
    expect(authenticate.remembered(key)).toBe(principal);
    // Every further spelling of the same header (more spaces, another case of Bearer) is the same token.
    for (let spaces = 2; spaces <= acceptedTokenCount + 1; spaces++) void authenticate(`${spaces % 2 === 0 ? 'bEaReR' : 'BEARER'}${' '.repeat(spaces)}${key}`);
    expect(authenticate.remembered(key)).toBe(principal);
    expect(authenticate.remembered(other)).toBe(otherPrincipal);
    expect(authenticate(`bearer   ${other}  `)).toBe(otherPrincipal);
  });
});

describe('the chosen content codings', () => {
  it('are the same for a header seen before, and right for any number of distinct headers', () => {
    for (let round = 0; round < 2; round++) {
      expect(chooseEncoding('gzip, deflate, br, zstd')).toBe('gzip');
      expect(chooseEncoding('br')).toBe('br');
      expect(chooseEncoding('gzip;q=0, br;q=0.5')).toBe('br');
      expect(chooseEncoding('identity')).toBe('identity');
    }
    // More distinct headers than are remembered: each still parsed right.
    for (let weight = 0; weight < 1000; weight++) {
      const q = (weight / 1000).toFixed(3);
      expect(chooseEncoding(`br;q=${q}, gzip;q=0.5`)).toBe(Number(q) > 0.5 ? 'br' : 'gzip');
    }
    expect(chooseEncoding(`gzip;q=0, br;q=0, ${'x'.repeat(300)}`)).toBe('identity');
  });
});

describe('long list headers', () => {
  const padding = (count: number): string => Array.from({ length: count }, (_, index) => `x-coding-${index}`).join(', ');

  it(`are read only as far as their first ${listHeaderBounds.elements} elements in ${listHeaderBounds.characters} characters`, () => {
    expect(chooseEncoding(`${padding(listHeaderBounds.elements - 1)}, gzip`)).toBe('gzip');
    expect(chooseEncoding(`${padding(listHeaderBounds.elements)}, gzip`)).toBe('identity');
    expect(chooseEncoding(`${'x'.repeat(listHeaderBounds.characters)}, gzip`)).toBe('identity');
    const tags = (count: number): string => Array.from({ length: count }, (_, index) => `"tag-${index}"`).join(', ');
    expect(matchesIfNoneMatch(`${tags(listHeaderBounds.elements - 1)}, "wanted"`, '"wanted"')).toBe(true);
    expect(matchesIfNoneMatch(`${tags(2000)}, "wanted"`, '"wanted"')).toBe(false);
  });
});
