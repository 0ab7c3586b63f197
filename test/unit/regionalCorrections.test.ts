import { describe, expect, it } from 'vitest';
import { correctSubdivisionDays, type RegionalCorrection, type SubdivisionDay } from '../../generator/import/holidays/regionalCorrections.ts';

const cited = { why: 'a law says so, for the test', source: 'https://example.org/law' };
const own: SubdivisionDay[] = [
  ['2025-01-02', 'optional', 'Berchtoldstag', "Saint Berchtold's Day"],
  ['2025-09-02', 'public', 'Local Day', 'Local Day'],
];
const other: Record<string, SubdivisionDay[]> = {
  'XA-LU': [
    ['2025-06-19', 'public', 'Fronleichnam', 'Corpus Christi'],
    ['2026-06-04', 'public', 'Fronleichnam', 'Corpus Christi'],
    ['2025-12-26', 'public', 'Stephanstag', "Saint Stephen's Day"],
  ],
};
const correct = (corrections: RegionalCorrection[]) => correctSubdivisionDays('XA-FR', own, corrections, (code) => other[code]);

describe('regional day corrections (data/curated/regional-day-corrections.json)', () => {
  it('adds a day, removes one, and copies the days of a name from another subdivision in a category of its own, in date order', () => {
    expect(
      correct([
        { ...cited, subdivision: 'XA-FR', action: 'add', date: '2025-03-31', category: 'public', name: 'Eid', english: 'Eid al-Fitr' },
        { ...cited, subdivision: 'XA-FR', action: 'remove', date: '2025-09-02', name: 'Local Day' },
        { ...cited, subdivision: 'XA-FR', action: 'addLike', like: 'XA-LU', names: ['Fronleichnam'], category: 'catholic' },
        { ...cited, subdivision: 'XA-ZZ', action: 'remove', date: '2025-01-02', name: 'Berchtoldstag' },
      ]),
    ).toEqual([
      ['2025-01-02', 'optional', 'Berchtoldstag', "Saint Berchtold's Day"],
      ['2025-03-31', 'public', 'Eid', 'Eid al-Fitr'],
      ['2025-06-19', 'catholic', 'Fronleichnam', 'Corpus Christi'],
      ['2026-06-04', 'catholic', 'Fronleichnam', 'Corpus Christi'],
    ]);
  });

  it('stops on a correction that finds nothing to change, naming it', () => {
    expect(() => correct([{ ...cited, subdivision: 'XA-FR', action: 'remove', date: '2025-09-03', name: 'Local Day' }])).toThrow(
      /XA-FR has no day "Local Day" on 2025-09-03 to remove/,
    );
    expect(() =>
      correct([{ ...cited, subdivision: 'XA-FR', action: 'add', date: '2025-01-02', category: 'public', name: 'Berchtoldstag', english: 'x' }]),
    ).toThrow(/already has "Berchtoldstag" on 2025-01-02/);
    expect(() => correct([{ ...cited, subdivision: 'XA-FR', action: 'addLike', like: 'XA-LU', names: ['Allerheiligen'], category: 'catholic' }])).toThrow(
      /XA-LU has no day named "Allerheiligen"/,
    );
    expect(() => correct([{ ...cited, subdivision: 'XA-FR', action: 'addLike', like: 'XB-LU', names: ['Fronleichnam'], category: 'catholic' }])).toThrow(
      /"XB-LU" is no subdivision of the same country/,
    );
  });
});
