/**
 * PTT's neighbourhood names read as what they name: the form a Turkish address form shows, the
 * kind of place, and the village or belde a place belongs to. PTT abbreviates ("Caferağa Mah",
 * "Akdere Mah (Başlı Köyü)", "Liman Sb Mah"); TÜİK writes the bare name with its type beside it.
 * The rules, their evidence and their agreement with TÜİK's names are in
 * data/research/ptt-neighbourhood-names/ (REPORT.md; rules.py is the reference these follow).
 *
 * - `display`: "Caferağa Mahallesi", "Akpınar Köyü", "Akdere Mahallesi (Başlı Köyü)", "Liman
 *   Serbest Bölgesi": the type word written out, the village or belde in brackets.
 * - `type`: mahalle, köy, köy_mahallesi (a quarter of a village), osb (an organised industrial
 *   zone), sb (a free zone), yayla, mezra, mevkii, site, other.
 * - `parent`: the village or belde ("Başlı Köyü", "Deliilyas Beldesi"), or null.
 * - `tuikName`: the name as TÜİK writes the unit ("Caferağa", "Kumköy (Kilyos)").
 */

export type PlaceType = 'mahalle' | 'köy' | 'köy_mahallesi' | 'osb' | 'sb' | 'yayla' | 'mezra' | 'mevkii' | 'site' | 'other';

export interface PlaceName {
  readonly display: string;
  readonly type: PlaceType;
  readonly parent: string | null;
  readonly tuikName: string;
}

const trUpper = (text: string): string => text.toLocaleUpperCase('tr');
const trLower = (text: string): string => text.toLocaleLowerCase('tr');
const trCapital = (word: string): string => (word ? trUpper(word.slice(0, 1)) + word.slice(1) : word);

/** A letter, digit or underscore in any script (Python's `\w`), and a word boundary before one. */
const w = '[\\p{L}\\p{N}_]';
const boundary = `(?<!${w})`;
const mah = '(?:Mah\\.?|Mh\\.?|Mahallesi|Mahalle)';

const parentPattern = /\s*\(([^()]+?)\s+(Köyü|Beldesi)\)$/u;
const altPattern = new RegExp(`^(.*?)\\s*${mah}?\\s*\\(([^()]+?)\\s+Mah\\)\\s*(.*)$`, 'u');
const tailTypes: readonly [RegExp, PlaceType, string][] = [
  [new RegExp(`^(.*?)\\s*${boundary}Köyü$`, 'u'), 'köy', 'Köyü'],
  [new RegExp(`^(.*?)\\s*${boundary}Köy$`, 'u'), 'köy', 'Köyü'],
  [new RegExp(`^(.*?)\\s*${mah}$`, 'u'), 'mahalle', 'Mahallesi'],
];
const gluedMah = /^(\S+?)mah\.$/u;

/** The letter after `(` or `.` upper-cased, Turkish rules ("Yk.hırbe" → "Yk.Hırbe"); after `-` left alone. */
function fixCase(text: string): string {
  return text
    .replace(new RegExp(`\\((${w})`, 'gu'), (_all, letter: string) => `(${trUpper(letter)}`)
    .replace(new RegExp(`\\.(${w})`, 'gu'), (_all, letter: string) => `.${trUpper(letter)}`);
}

interface Parts {
  bare: string;
  alt: string | null;
  type: PlaceType;
  word: string | null;
  parent: string | null;
  parentKind: 'köy' | 'belde' | null;
  villagePrefixed: boolean;
}

/** A trailing "(X Köyü)" or "(X Beldesi)", or a leading "X Köyü": the village or belde the place is in. */
function parentOf(text: string): { text: string; parent: string | null; parentKind: Parts['parentKind']; villagePrefixed: boolean } {
  const inParent = parentPattern.exec(text);
  if (inParent) {
    return {
      text: text.slice(0, inParent.index).trim(),
      parent: fixCase(inParent[1] ?? ''),
      parentKind: inParent[2] === 'Köyü' ? 'köy' : 'belde',
      villagePrefixed: false,
    };
  }
  // A place named after its village ("Şenişler Köyü Ketenova Yaylası"): the name is kept whole.
  const prefixed = /^(.+?) Köyü? (.+)$/u.exec(text);
  if (prefixed && !new RegExp(`${mah}$`, 'u').test(text)) return { text, parent: prefixed[1] ?? null, parentKind: 'köy', villagePrefixed: true };
  return { text, parent: null, parentKind: null, villagePrefixed: false };
}

/** PTT's spellings undone: a tail glued after a bracket (its hint), "Mah (X Mah)Y", "Mh.5", and a second name in brackets. */
function unglued(input: string): { text: string; hint: 'osb' | 'mezra' | null; alt: string | null } {
  let text = input;
  // A tail PTT glued after a bracket: "(Organize Mah)osb", "(Yoncalı Mah)mz", "(Hayallar Mah)yayla Evleri".
  let hint: 'osb' | 'mezra' | null = null;
  const glued = /\)\s*(osb|mz|Mz)$/u.exec(text);
  if (glued) {
    hint = glued[1]?.toLowerCase() === 'osb' ? 'osb' : 'mezra';
    text = text.slice(0, glued.index + 1).trim();
  }
  const reordered = new RegExp(`^Mah \\(([^()]+) Mah\\)(${w}.*)$`, 'u').exec(text);
  if (reordered) text = `${reordered[1]} ${trCapital(reordered[2] ?? '')}`;

  text = text.replace(new RegExp(`\\s*${boundary}(?:Mh|Mah)\\.(\\d+)$`, 'u'), ' $1 Mah');
  text = text.replace(new RegExp(`${boundary}(Mh|Mah)\\.(${w})`, 'gu'), (_all, abbreviation: string, letter: string) => `${abbreviation}. ${trUpper(letter)}`);
  // A second name, "X Mah (Y Mah)": an old or other name, or the bucak that tells two apart; TÜİK writes "X (Y)".
  let alt: string | null = null;
  const second = altPattern.exec(text);
  if (second?.[2]) {
    let first = (second[1] ?? '').trim();
    let other: string | null = second[2].trim();
    const rest = (second[3] ?? '').trim();
    if (['', 'Mh.', 'Mah', 'Mah.'].includes(rest)) {
      if (first === '' || first === 'Yok') {
        first = other;
        other = null;
      }
      alt = other;
      text = `${first} Mah`;
    }
  }
  return { text, hint, alt };
}

/** The type of place from the last word, and the name without it. */
function typeByWord(text: string): { type: PlaceType; word: string | null; bare: string } {
  for (const [pattern, kind, typeWord] of tailTypes) {
    const match = pattern.exec(text);
    if (match?.[1]) return { type: kind, word: typeWord, bare: match[1].trim() };
  }
  const gluedWord = gluedMah.exec(text);
  if (gluedWord) return { type: 'mahalle', word: 'Mahallesi', bare: gluedWord[1] ?? '' };
  const lower = trLower(text);
  const bare = text.replace(new RegExp(`${boundary}(Mh|Mah)\\.?(?=\\s|$)`, 'gu'), 'Mahallesi');
  if (/yaylas[ıi]$|yaylalar[ıi]$|yayla evleri$|yayla evi$/u.test(lower)) return { type: 'yayla', word: null, bare };
  if (/mezras[ıi]$/u.test(lower)) return { type: 'mezra', word: null, bare };
  if (/mevkii?$/u.test(lower)) return { type: 'mevkii', word: null, bare };
  if (new RegExp(`${boundary}sitesi$`, 'u').test(lower)) return { type: 'site', word: null, bare };
  if (new RegExp(`${boundary}osb$|organize sanayi`, 'u').test(lower)) return { type: 'osb', word: null, bare };
  return { type: 'other', word: null, bare };
}

/** A mahalle's name without its word; organised industrial zones and free zones are PTT postal areas of their own, not TÜİK units. */
function mahalleOrZone(name: string, parentKind: Parts['parentKind']): { type: PlaceType; word: string | null | undefined; bare: string } {
  let bare = name.replace(new RegExp(`\\s*${boundary}(Mh|Mah)\\.?$`, 'u'), '').trim();
  const numbered = /^(.*\S)\s*(Mh|Mah)\.(\d+)$/u.exec(bare);
  if (numbered) bare = `${numbered[1]} ${numbered[3]}`;
  const zone = /^(.*?)\s*(\d+\.)?\s*osb\s*(\d*)$/iu.exec(bare) ?? /^(.*?)()osb(\d)kısım$/iu.exec(bare);
  if (zone && parentKind !== 'köy') {
    const core = `${zone[1] ?? ''}${zone[2] ? ` ${zone[2]}` : ''}`.trim();
    return { type: 'osb', word: null, bare: `${core} OSB${zone[3] ? ` ${zone[3]}` : ''}`.trim() };
  }
  if (new RegExp(`${boundary}Sb$`, 'u').test(bare))
    return { type: 'sb', word: null, bare: bare.replace(new RegExp(`\\s*${boundary}Sb$`, 'u'), ' Serbest Bölgesi') };
  if (/organize sanayii? bölgesi|sanayi bölgesi/u.test(trLower(bare))) return { type: 'osb', word: null, bare };
  return { type: 'mahalle', word: undefined, bare };
}

function parse(raw: string): Parts {
  const cleaned = raw.replace(/\s+/gu, ' ').trim().replace(/\(\s+/gu, '(').replace(/\s+\)/gu, ')');
  const { text: withoutParent, parent, parentKind, villagePrefixed } = parentOf(cleaned);
  const { text, hint, alt } = unglued(withoutParent);
  let { type, word, bare } = typeByWord(text);
  if (type === 'mahalle') {
    const mahalle = mahalleOrZone(bare, parentKind);
    type = mahalle.type;
    bare = mahalle.bare;
    if (mahalle.word !== undefined) word = mahalle.word;
  }
  if (hint) {
    type = hint;
    word = hint === 'osb' ? 'OSB' : 'Mezrası';
  }
  if (parentKind === 'köy' && type === 'mahalle') type = 'köy_mahallesi';
  return { bare: fixCase(bare), alt: alt === null ? null : fixCase(alt), type, word, parent, parentKind, villagePrefixed };
}

/** A PTT neighbourhood name as a form shows it, with its kind and the place it belongs to. */
export function placeName(pttName: string): PlaceName {
  const parts = parse(pttName);
  const tuikName = parts.bare + (parts.alt ? ` (${parts.alt})` : '');
  let display = tuikName + (parts.word ? ` ${parts.word}` : '');
  let parent: string | null = null;
  if (parts.parent) {
    parent = `${parts.parent} ${parts.parentKind === 'köy' ? 'Köyü' : 'Beldesi'}`;
    if (!parts.villagePrefixed) display = `${display} (${parent})`;
  }
  return { display, type: parts.type, parent, tuikName };
}
