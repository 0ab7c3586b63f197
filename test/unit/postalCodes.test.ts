import { describe, expect, it } from 'vitest';
import { expectedForms, normaliseKey, postalCodeKey } from '../../contract/keys.ts';

const keyOf = (raw: string): string | undefined => {
  const result = postalCodeKey(raw);
  return result.ok ? result.key : undefined;
};

describe('postal code keys', () => {
  it('are the lookups’ postalCode kind, one function for the files and the queries', () => {
    for (const raw of ['34710', 'SW1A 1AA', '00-001', 'x']) expect(normaliseKey('postalCode', raw)).toEqual(postalCodeKey(raw));
  });

  it('keep every stored form as it is, in lower case without separators: what the generator names files with', () => {
    const stored: [string, string][] = [
      ['34710', '34710'], // Türkiye (PTT)
      ['06420', '06420'], // Türkiye and Germany: leading zeros kept
      ['80331', '80331'], // Germany
      ['SW1A', 'sw1a'], // the UK's outward code
      ['W1', 'w1'], // the UK's outward codes of two characters
      ['H0H', 'h0h'], // Canada's forward sortation area
      ['1012', '1012'], // the Netherlands' four digits
      ['02134', '02134'], // the US
      ['00-001', '00001'], // Poland
      ['100-0001', '1000001'], // Japan
      ['01000-000', '01000000'], // Brazil
      ['1000-001', '1000001'], // Portugal
      ['AD100', 'ad100'], // Andorra
    ];
    for (const [code, key] of stored) expect(keyOf(code), code).toBe(key);
  });

  it('forgive letter case, spaces and hyphens', () => {
    for (const typed of ['sw1a', 'SW1A', ' sw1a ', 'Sw1A']) expect(keyOf(typed), typed).toBe('sw1a');
    for (const typed of ['34710', '34 710', '34-710', ' 34710 ']) expect(keyOf(typed), typed).toBe('34710');
    for (const typed of ['00-001', '00001', '00 001']) expect(keyOf(typed), typed).toBe('00001');
    for (const typed of ['100-0001', '1000001']) expect(keyOf(typed), typed).toBe('1000001');
    for (const typed of ['01000-000', '01000000']) expect(keyOf(typed), typed).toBe('01000000');
  });

  it('find the part the data holds from a whole code: the UK’s outward code, Canada’s first three, the Netherlands’ four digits, a ZIP+4’s ZIP', () => {
    for (const typed of ['SW1A 1AA', 'sw1a 1aa', 'SW1A1AA', 'sw1a1aa', ' SW1A  1AA ']) expect(keyOf(typed), typed).toBe('sw1a');
    expect(keyOf('W1D 3QF')).toBe('w1d');
    expect(keyOf('E1 6AN')).toBe('e1');
    expect(keyOf('M1 1AE')).toBe('m1');
    expect(keyOf('EC1A 1BB')).toBe('ec1a');
    expect(keyOf('JE2 4WF')).toBe('je2'); // Jersey writes the UK's form
    expect(keyOf('H0H 0H0')).toBe('h0h');
    expect(keyOf('k1a0b1')).toBe('k1a');
    expect(keyOf('1012 AB')).toBe('1012');
    expect(keyOf('1012ab')).toBe('1012');
    expect(keyOf('02134-1234')).toBe('02134');
    expect(keyOf('02134 1234')).toBe('02134');
    // Nine digits without the separator are no ZIP+4 code: no country's codes are nine digits.
    expect(keyOf('021341234')).toBe('021341234');
  });

  it('keep leading zeros: 02134 and 2134 are two codes, and 2134 is a well-formed code of four-digit countries', () => {
    expect(keyOf('02134')).toBe('02134');
    expect(keyOf('2134')).toBe('2134');
    expect(keyOf('01067')).not.toBe(keyOf('1067'));
  });

  it('read full-width input and digits of other scripts as ASCII, so a key stays ASCII', () => {
    expect(keyOf('１００－０００１')).toBe('1000001'); // what Japanese input writes
    expect(keyOf('１００ー０００１')).toBe('1000001');
    expect(keyOf('ＳＷ１Ａ　１ＡＡ')).toBe('sw1a');
    expect(keyOf('٣٤٧١٠')).toBe('34710'); // Arabic-Indic digits
    expect(keyOf('۰۶۴۲۰')).toBe('06420'); // Persian digits
    expect(keyOf('३४७१०')).toBe('34710'); // Devanagari digits
  });

  it('refuse what is no postal code, naming the form', () => {
    for (const raw of ['', '34', 'W', '12345678901', '34_710', 'İ3471', 'Straße1', '34710/..', 'a'.repeat(21), '+34710']) {
      expect(postalCodeKey(raw), raw).toEqual({ ok: false, expected: expectedForms.postalCode });
    }
  });
});
