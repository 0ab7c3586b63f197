/**
 * The doorkeeper in front of the proxy's caches: a body or a target is kept only once it is asked
 * for again within a window of distinct ETags.
 */
import { describe, expect, it } from 'vitest';
import { computeEtag } from '../../contract/manifest.ts';
import { Doorkeeper } from '../../proxy/store/doorkeeper.ts';

const etagOf = (name: string): string => computeEtag(Buffer.from(name));

describe('the doorkeeper', () => {
  it('admits an ETag the second time it is asked for, and every time after', () => {
    const door = new Doorkeeper(1000);
    const etag = etagOf('a body');
    expect(door.admits(etag)).toBe(false);
    expect(door.admits(etag)).toBe(true);
    expect(door.admits(etag)).toBe(true);
  });

  it('admits few of many ETags each asked for once', () => {
    const window = 4096;
    const door = new Doorkeeper(window);
    let admitted = 0;
    for (let index = 0; index < window * 10; index++) if (door.admits(etagOf(`body ${index}`))) admitted++;
    // Eight bits per ETag of the window: at most about one in eight shares a bit with an earlier one.
    expect(admitted).toBeGreaterThan(0);
    expect(admitted / (window * 10)).toBeLessThan(0.15);
  });

  it(`forgets what it saw once a window's worth of other ETags has been marked`, () => {
    const window = 256;
    const door = new Doorkeeper(window);
    const etag = etagOf('asked long ago');
    door.admits(etag);
    // Twice the window: others that share a bit with one marked before are not marked again.
    for (let index = 0; index < window * 2; index++) door.admits(etagOf(`other ${index}`));
    expect(door.admits(etag)).toBe(false);
    expect(door.admits(etag)).toBe(true);
  });

  it('takes any string without throwing: characters outside base64url count as zero', () => {
    const door = new Doorkeeper(16);
    for (const odd of ['', '"', '"é✓', 'W/"x"', '"\u{1F600}"']) expect(() => door.admits(odd)).not.toThrow();
    expect(door.admits('"é✓')).toBe(true);
  });
});
