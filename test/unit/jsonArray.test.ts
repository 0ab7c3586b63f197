/**
 * A record file parsed by pieces (generator/records/jsonArray.ts) gives JSON.parse's records exactly, or
 * nothing, so that the caller parses the whole text: never other records, and never records from
 * a text JSON.parse refuses.
 */
import { describe, expect, it } from 'vitest';
import { parseJsonArrayByPieces } from '../../generator/records/jsonArray.ts';

const records = [
  { id: 'a1', name: 'Çamlıca', zipCode: '34696' },
  { id: 'b2', name: 'Ħal Għargħur', nested: { list: [1, 2, { deep: 'x' }], empty: [] } },
  { id: 'c3', name: 'München (Altstadt-Lehel)', note: 'a \\"quoted\\" value, with [brackets] and {braces}' },
  { id: 'd4', name: '東京', escaped: '\u00e9\n\t' },
  ['an', 'array', 'element'],
  42,
  null,
  'a string element',
];

/** One record a line, as the data's files are written. */
const oneALine = (values: readonly unknown[]) => `[\n${values.map((value) => JSON.stringify(value)).join(',\n')}\n]\n`;

/** JSON.parse's answer, or the error it throws. */
const parsedWhole = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return 'refused';
  }
};

describe('parseJsonArrayByPieces', () => {
  it('gives the records of a file written one a line, whatever the piece size', () => {
    const text = oneALine(records);
    for (const size of [1, 2, 7, 16, 40, 100, 1 << 16]) expect(parseJsonArrayByPieces(Buffer.from(text), size)).toEqual(JSON.parse(text));
  });

  it('gives an empty array for an empty one', () => {
    expect(parseJsonArrayByPieces(Buffer.from('[]'), 1)).toEqual([]);
    expect(parseJsonArrayByPieces(Buffer.from(' [ \n ] \n'))).toEqual([]);
  });

  it('gives nothing, not other records, for a file whose lines cut its values', () => {
    const pretty = JSON.stringify(records, null, 2);
    expect(parseJsonArrayByPieces(Buffer.from(pretty), 8)).toBeUndefined();
    expect(parseJsonArrayByPieces(Buffer.from('[[1,\n2]]'), 1)).toBeUndefined();
    expect(parseJsonArrayByPieces(Buffer.from('[{"a":\n1},\n{"b":[\n]}]'), 1)).toBeUndefined();
    expect(parseJsonArrayByPieces(Buffer.from('[1\n,2]'), 1)).toBeUndefined();
  });

  it('gives nothing for a text JSON.parse refuses', () => {
    for (const text of ['', '   ', '[', ']', '[,]', '[1,\n2,\n]', '[1,\n,\n2]', '[1]\n[2]', '[1,\n2', '\ufeff[1]', '[1,\n"cut\n"]']) {
      expect({ text, whole: parsedWhole(text) }).toEqual({ text, whole: 'refused' });
      expect({ text, pieces: parseJsonArrayByPieces(Buffer.from(text), 1) }).toEqual({ text, pieces: undefined });
    }
    // Not an array: the caller's whole parse says what it is.
    expect(parseJsonArrayByPieces(Buffer.from('{"records":[1]}'), 1)).toBeUndefined();
  });

  it('agrees with JSON.parse on texts cut and joined at random line ends', () => {
    // A fixed sequence, so that a failure is the same on every run.
    let seed = 7;
    const next = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    const values = ['{"a":1}', '"x,\\n"', '2', '[3,4]', '{"b":[5,\n6]}', '"ü]"', '[]', '{}'];
    const separators = [',\n', ',\n', ', \n', ',\n\n', ',', '\n,', ',\n,\n'];
    let agreed = 0;
    for (let round = 0; round < 3000; round++) {
      const elements = Array.from({ length: next(8) }, () => values[next(values.length)]);
      let text = `[\n${elements.map((value, at) => (at === 0 ? value : `${separators[next(separators.length)]}${value}`)).join('')}\n]\n`;
      // Now and then a byte dropped or doubled, so that some texts are not JSON at all.
      if (next(4) === 0) {
        const at = next(text.length);
        text = next(2) === 0 ? text.slice(0, at) + text.slice(at + 1) : text.slice(0, at + 1) + text.slice(at);
      }
      const pieces = parseJsonArrayByPieces(Buffer.from(text), 1 + next(6));
      // Nothing (the caller then parses the whole text), or exactly what JSON.parse gives.
      if (pieces === undefined) continue;
      expect({ text, pieces }).toEqual({ text, pieces: parsedWhole(text) });
      agreed++;
    }
    // The texts that parse by pieces are not few: the comparison above is made.
    expect(agreed).toBeGreaterThan(100);
  });
});
