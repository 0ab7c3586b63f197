/** generator/builds/progress.ts: a long build's stage, done/total and time left, on a terminal and in a log. */
import { describe, expect, it } from 'vitest';
import { createProgress, describeDuration } from '../../generator/builds/progress.ts';

/** An output that keeps what was written, and a clock the test moves. */
function recorder(isTTY: boolean) {
  const written: string[] = [];
  let time = 0;
  const progress = createProgress({ isTTY, write: (text: string) => written.push(text) }, () => time);
  return { written, progress, tick: (ms: number) => (time += ms) };
}

describe('build progress', () => {
  it('writes a plain line when a stage starts and at every tenth of it, with the time left, where there is no terminal', () => {
    const { written, progress, tick } = recorder(false);
    progress.stage('write', 200, 'shards');
    for (let shard = 0; shard < 200; shard++) {
      tick(100);
      progress.advance();
    }
    progress.end();
    expect(written).toHaveLength(11);
    expect(written[0]).toBe('write: 0/200 shards (0 %)\n');
    expect(written[1]).toBe('write: 20/200 shards (10 %), about 18 s left\n');
    expect(written[10]).toBe('write: 200/200 shards (100 %)\n');
  });

  it('rewrites one line on a terminal a few times a second, and ends it', () => {
    const { written, progress, tick } = recorder(true);
    progress.stage('bodies', 52, 'routes');
    for (let route = 0; route < 52; route++) {
      tick(50);
      progress.advance();
    }
    progress.end();
    expect(written.length).toBeGreaterThan(5);
    expect(written.length).toBeLessThan(20);
    expect(written.slice(0, -1).every((text) => text.startsWith('\r\x1b[Kbodies: '))).toBe(true);
    expect(written.at(-2)).toBe('\r\x1b[Kbodies: 52/52 routes (100 %)');
    expect(written.at(-1)).toBe('\n');
  });

  it('says a duration as a person reads it', () => {
    expect(describeDuration(12_400)).toBe('12 s');
    expect(describeDuration(184_000)).toBe('3 min 4 s');
  });
});
