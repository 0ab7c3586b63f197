/**
 * The world's postal-code checks (generator/check/postalComparison.ts and the four countries'
 * checks): when two names name one place, how a difference is classed, and how codes are counted.
 */
import { describe, expect, it } from 'vitest';
import { departementSubdivisions, isOverseasCode } from '../../generator/check/frenchPostalCodes.ts';
import { germanPlaceName, germanTitleWords } from '../../generator/check/germanPostalCodes.ts';
import { officeName, renamedName, stateSubdivisions } from '../../generator/check/indianPostalCodes.ts';
import { classifyNameDifference, comparePostalCodes, namesAgree, postalExplainedFigures } from '../../generator/check/postalComparison.ts';
import type { ServedPlace } from '../../generator/check/servedPlaces.ts';
import { isTerritoryZip } from '../../generator/check/usPostalCodes.ts';

describe('two names name one place', () => {
  it('when they fold alike: case, diacritics, punctuation, "X-Y" and "X Y"', () => {
    expect(namesAgree('MÜNCHEN', 'München')).toBe('equal');
    expect(namesAgree('Saint-Étienne', 'Saint Etienne')).toBe('equal');
    expect(namesAgree("L'Aiguillon-sur-Mer", 'Laiguillon sur mer')).toBe('equal');
  });

  it('when the words of one begin the other, whole words only', () => {
    expect(namesAgree('Lyon', 'Lyon 01')).toBe('prefix');
    expect(namesAgree('Berlin-Mitte', 'Berlin')).toBe('prefix');
    expect(namesAgree('Lyon', 'Lyons-la-Forêt')).toBeUndefined();
  });

  it('when an abbreviation stands for the word it shortens', () => {
    expect(namesAgree('Neustadt i. Sa.', 'Neustadt in Sachsen')).toBe('abbreviation');
    expect(namesAgree('Königstein/Sächs.Schw.', 'Königstein/Sächsische Schweiz')).toBe('abbreviation');
    expect(namesAgree('St. Georgen', 'Sankt Georgen im Schwarzwald')).toBe('abbreviation');
    expect(namesAgree('Neumarkt i.d. OPf.', 'Neumarkt in der Oberpfalz')).toBe('abbreviation');
    expect(namesAgree('Haag i. OB', 'Haag in Oberbayern')).toBe('abbreviation');
  });

  it('not when a word differs, nor when a word is only shortened without a mark', () => {
    expect(namesAgree('Geising', 'Altenberg')).toBeUndefined();
    expect(namesAgree('Montgaillard', 'Montgailhard')).toBeUndefined();
    expect(namesAgree('Sa', 'Sachsen')).toBeUndefined();
    expect(namesAgree('', 'Sachsen')).toBeUndefined();
  });
});

describe('classing a name difference', () => {
  it('calls a name that differs only by a title word `title`', () => {
    expect(classifyNameDifference(['Bad Staffelstein'], ['Staffelstein'], germanTitleWords)).toBe('title');
    expect(classifyNameDifference(['Heringsdorf'], ['Ostseebad Heringsdorf'], germanTitleWords)).toBe('title');
    expect(classifyNameDifference(['Staffelstein'], ['Bad Staffelstein'])).toBe('merged');
  });

  it('calls a served name that is part of the reference compound `merged`', () => {
    expect(classifyNameDifference(['Neugersdorf'], ['Ebersbach-Neugersdorf'])).toBe('merged');
    expect(classifyNameDifference(['Pelvoux'], ['Vallouise-Pelvoux'])).toBe('merged');
    expect(classifyNameDifference(['Ebersbach-Neugersdorf'], ['Neugersdorf'])).toBe('different');
  });

  it('calls anything else `different`', () => {
    expect(classifyNameDifference(['Geising'], ['Altenberg'], germanTitleWords)).toBe('different');
  });
});

describe('each reference read as the check reads it', () => {
  it('OpenStreetMap\'s "X u.a." names X', () => {
    expect(germanPlaceName('Oßling u.a.')).toBe('Oßling');
    expect(germanPlaceName('Zell u.A.')).toBe('Zell u.A.');
  });

  it("India Post's office names lose their kind, and renamed cities read as today", () => {
    expect(officeName('Ada B.O')).toBe('Ada');
    expect(officeName('Nagaram S.O (K.V.Rangareddy)')).toBe('Nagaram (K.V.Rangareddy)');
    expect(officeName('Kolkata G.P.O.')).toBe('Kolkata');
    expect(renamedName('Jayanagar (Mysore)')).toBe('Jayanagar (Mysuru)');
  });

  it("India Post's states stand for today's subdivisions", () => {
    const byName = new Map([
      ['andaman-and-nicobar-islands', 'AN'],
      ['andhra-pradesh', 'AP'],
    ]);
    expect(stateSubdivisions('ANDAMAN & NICOBAR ISLANDS', byName)).toEqual(['AN']);
    expect(stateSubdivisions('ANDHRA PRADESH', byName)).toEqual(['AP']);
    expect(stateSubdivisions('DAMAN & DIU', byName)).toEqual(['DH']);
    expect(stateSubdivisions('JAMMU & KASHMIR', byName)).toEqual(['JK', 'LA']);
    expect(stateSubdivisions('ATLANTIS', byName)).toEqual([]);
  });

  it('French départements map to ISO codes, overseas codes and US territories are known', () => {
    expect(departementSubdivisions('75')).toEqual(['75C']);
    expect(departementSubdivisions('69')).toEqual(['69', '69M']);
    expect(departementSubdivisions('2A')).toEqual(['2A']);
    expect([isOverseasCode('97100'), isOverseasCode('98800'), isOverseasCode('95000'), isOverseasCode('98000')]).toEqual([true, true, false, true]);
    expect([isTerritoryZip('00601'), isTerritoryZip('00802'), isTerritoryZip('96910'), isTerritoryZip('96799'), isTerritoryZip('01001')]).toEqual([
      true,
      true,
      true,
      true,
      false,
    ]);
  });
});

describe('comparing by postal code', () => {
  const place = (zipCode: string, district: string, stateProvince = 'BY', country = 'DE'): ServedPlace => ({
    country,
    stateProvince,
    district,
    place: district,
    zipCode,
  });
  const reference = new Map([
    ['80331', { names: ['München'], stateProvinces: ['BY'] }],
    ['01778', { names: ['Altenberg'], stateProvinces: ['SN'] }],
    ['12529', { names: ['Schönefeld'], stateProvinces: ['BB'] }],
    ['33333', { names: ['Bertelsmann'], stateProvinces: ['NW'] }],
    ['97100', { names: ['Basse-Terre'], stateProvinces: [] }],
  ]);
  const result = comparePostalCodes({
    country: 'DE',
    served: [
      place('80331', 'München'),
      place('01778', 'Geising', 'SN'),
      place('12529', 'Schönefeld', 'BB'),
      place('12529', 'Berlin', 'BE'),
      place('99999', 'Nowhere'),
    ],
    reference,
    setApart: (code) => (code.startsWith('97') ? 'overseas' : undefined),
    servedElsewhere: [place('97100', 'Basse-Terre', '', 'GP')],
  });

  it('counts the codes both ways, with the known set apart', () => {
    expect(result.figures).toMatchObject({
      servedCodes: 4,
      referenceCodes: 4,
      referenceCodesServed: 0.75,
      servedCodesInReference: 0.75,
      overseasCodes: 1,
      overseasCodesServed: 1,
      namesCompared: 3,
      stateProvincesCompared: 3,
    });
    expect(result.detail.setApart).toEqual({ overseas: { codes: 1, served: 1, servedUnder: { GP: 1 } } });
  });

  it('keys each disagreement by kind, class and code', () => {
    expect(result.disagreements.map((disagreement) => disagreement.key)).toEqual(['name different 01778', 'stateProvince border 12529', 'code 33333']);
    expect(result.disagreements[1]).toEqual({ key: 'stateProvince border 12529', ours: 'DE-BB, DE-BE', theirs: 'DE-BB' });
  });

  it('counts explained disagreements as agreement in the explained figures only', () => {
    const explained = postalExplainedFigures(result.figures, result.disagreements.slice(0, 1));
    expect(explained).toEqual({ referenceCodesServedCountingExplained: 1, namesAgreeCountingExplained: 1 - 1 / 3, stateProvincesAgreeCountingExplained: 1 });
  });
});
