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

function parse(raw: string): Parts {
  let text = raw.replace(/\s+/gu, ' ').trim().replace(/\(\s+/gu, '(').replace(/\s+\)/gu, ')');
  let parent: string | null = null;
  let parentKind: Parts['parentKind'] = null;
  let villagePrefixed = false;

  // A trailing "(X Köyü)" or "(X Beldesi)": the village or belde the place is in.
  const inParent = parentPattern.exec(text);
  if (inParent) {
    parent = fixCase(inParent[1] ?? '');
    parentKind = inParent[2] === 'Köyü' ? 'köy' : 'belde';
    text = text.slice(0, inParent.index).trim();
  }
  // A place named after its village ("Şenişler Köyü Ketenova Yaylası"): the name is kept whole.
  const prefixed = /^(.+?) Köyü? (.+)$/u.exec(text);
  if (prefixed && parent === null && !new RegExp(`${mah}$`, 'u').test(text)) {
    parent = prefixed[1] ?? null;
    parentKind = 'köy';
    villagePrefixed = true;
  }
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

  // The type from the last word.
  let type: PlaceType | null = null;
  let word: string | null = null;
  let bare = text;
  for (const [pattern, kind, typeWord] of tailTypes) {
    const match = pattern.exec(text);
    if (match?.[1]) {
      type = kind;
      word = typeWord;
      bare = match[1].trim();
      break;
    }
  }
  if (type === null) {
    const gluedWord = gluedMah.exec(text);
    if (gluedWord) {
      type = 'mahalle';
      word = 'Mahallesi';
      bare = gluedWord[1] ?? '';
    }
  }
  if (type === null) {
    const lower = trLower(text);
    if (/yaylas[ıi]$|yaylalar[ıi]$|yayla evleri$|yayla evi$/u.test(lower)) type = 'yayla';
    else if (/mezras[ıi]$/u.test(lower)) type = 'mezra';
    else if (/mevkii?$/u.test(lower)) type = 'mevkii';
    else if (new RegExp(`${boundary}sitesi$`, 'u').test(lower)) type = 'site';
    else if (new RegExp(`${boundary}osb$|organize sanayi`, 'u').test(lower)) type = 'osb';
    else type = 'other';
    bare = text.replace(new RegExp(`${boundary}(Mh|Mah)\\.?(?=\\s|$)`, 'gu'), 'Mahallesi');
  }
  if (type === 'mahalle') {
    bare = bare.replace(new RegExp(`\\s*${boundary}(Mh|Mah)\\.?$`, 'u'), '').trim();
    const numbered = /^(.*\S)\s*(Mh|Mah)\.(\d+)$/u.exec(bare);
    if (numbered) bare = `${numbered[1]} ${numbered[3]}`;
  }
  // Organised industrial zones and free zones: PTT postal areas of their own, not TÜİK units.
  if (type === 'mahalle') {
    const zone = /^(.*?)\s*(\d+\.)?\s*osb\s*(\d*)$/iu.exec(bare) ?? /^(.*?)()osb(\d)kısım$/iu.exec(bare);
    if (zone && parentKind !== 'köy') {
      type = 'osb';
      word = null;
      const core = `${zone[1] ?? ''}${zone[2] ? ` ${zone[2]}` : ''}`.trim();
      bare = `${core} OSB${zone[3] ? ` ${zone[3]}` : ''}`.trim();
    } else if (new RegExp(`${boundary}Sb$`, 'u').test(bare)) {
      type = 'sb';
      word = null;
      bare = bare.replace(new RegExp(`\\s*${boundary}Sb$`, 'u'), ' Serbest Bölgesi');
    } else if (/organize sanayii? bölgesi|sanayi bölgesi/u.test(trLower(bare))) {
      type = 'osb';
      word = null;
    }
  }
  if (hint) {
    type = hint;
    word = hint === 'osb' ? 'OSB' : 'Mezrası';
  }
  bare = fixCase(bare);
  if (alt) alt = fixCase(alt);
  if (parentKind === 'köy' && type === 'mahalle') type = 'köy_mahallesi';
  return { bare, alt, type, word, parent, parentKind, villagePrefixed };
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
