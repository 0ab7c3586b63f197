/**
 * `banks`: the banks served (bank.json: three-digit code and name) against TCMB's payment systems
 * participant list as transcribed on 2026-08-03
 * (data/checks/references/tcmb-payment-systems-participants-2026.json).
 *
 * The served codes were read from TCMB's lists as well, so this is no second opinion on TCMB
 * itself: it catches a code or a name mistyped in data/curated/banks.json, a bank served that
 * TCMB does not list (its code would then be no EFT code), a participant the data leaves out, and
 * names that drifted from what TCMB prints. Every disagreement is keyed by the three-digit code:
 * `096` when one side lacks the code, `096 name` when both have it under different names.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { foldName } from '../../contract/keys.ts';
import { toApiBankCode } from '../import/finance/banks.ts';
import { bankSchema } from '../records/schemas.ts';
import type { CheckReport, DataCheck, Disagreement } from './check.ts';

export const banksReferenceFile = 'tcmb-payment-systems-participants-2026.json';

const referenceSchema = z.object({
  title: z.string().min(1),
  retrieved: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  transcription: z.object({ repository: z.string().url(), commit: z.string().regex(/^[0-9a-f]{40}$/) }),
  participants: z.array(z.object({ code: z.string().regex(/^\d{4}$/), name: z.string().min(1), kind: z.string().min(1) })).min(1),
});
export type BanksReference = z.infer<typeof referenceSchema>;

export async function readBanksReference(dataDir: string): Promise<BanksReference> {
  const file = path.join(dataDir, 'checks', 'references', banksReferenceFile);
  return referenceSchema.parse(JSON.parse(await readFile(file, 'utf8')));
}

/**
 * Legal forms at the end of a name, as folded words: `A.Ş.` is `a s`, `T.A.O.` is `t a o`,
 * `(SA)` is `sa`. Longest first, so `T.A.Ş.` is not read as `T.` plus `A.Ş.`.
 */
const legalForms = [['t', 'a', 's'], ['t', 'a', 'o'], ['s', 'p', 'a'], ['a', 's'], ['n', 'a'], ['sa']];

interface NameWord {
  readonly word: string;
  /** Written with a full stop, as TCMB shortens words: `T.` for Türkiye, `KALK.` for Kalkınma. */
  readonly shortened: boolean;
}

function nameWords(name: string): NameWord[] {
  const words = [...name.matchAll(/([\p{L}\p{N}]+)(\.?)/gu)].map(([, word = '', stop]) => ({ word: foldName(word), shortened: stop === '.' }));
  for (let stripped = true; stripped; ) {
    stripped = false;
    for (const form of legalForms) {
      const tail = words.slice(-form.length).map(({ word }) => word);
      if (words.length > form.length && tail.join(' ') === form.join(' ')) {
        words.splice(-form.length);
        stripped = true;
        break;
      }
    }
  }
  return words;
}

function sameWord(a: NameWord, b: NameWord): boolean {
  return a.word === b.word || (a.shortened && b.word.startsWith(a.word)) || (b.shortened && a.word.startsWith(b.word));
}

/**
 * Two names of one bank agree when, case, accents and the legal form (`A.Ş.`, `T.A.O.`, `S.P.A.`)
 * aside, they have the same words, a word written with a full stop standing for any word it
 * begins: TCMB's `T.C. ZİRAAT BANKASI A.Ş.` is `Türkiye Cumhuriyeti Ziraat Bankası A.Ş.`, but
 * `QNB FİNANSBANK A.Ş.` is not `QNB Bank A.Ş.`.
 */
export function sameBankName(ours: string, theirs: string): boolean {
  const a = nameWords(ours);
  const b = nameWords(theirs);
  return (
    a.length === b.length &&
    a.every((word, index) => {
      const other = b[index];
      return other !== undefined && sameWord(word, other);
    })
  );
}

const ratio = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

export const check: DataCheck = {
  name: 'banks',
  async run(data, dataDir): Promise<CheckReport> {
    const reference = await readBanksReference(dataDir);
    const served = z.array(bankSchema).parse(data.get('bank') ?? []);
    const ours = new Map(served.map((bank) => [bank.code, bank.name]));
    const theirs = new Map(reference.participants.map((participant) => [toApiBankCode(participant.code) ?? participant.code, participant]));

    const disagreements: Disagreement[] = [];
    const notListed: string[] = [];
    const notServed: string[] = [];
    let namesCompared = 0;
    let namesMatching = 0;
    for (const code of [...new Set([...ours.keys(), ...theirs.keys()])].sort()) {
      const name = ours.get(code);
      const participant = theirs.get(code);
      if (participant === undefined) {
        notListed.push(code);
        disagreements.push({ key: code, ours: name ?? 'absent', theirs: 'absent' });
      } else if (name === undefined) {
        notServed.push(code);
        disagreements.push({ key: code, ours: 'absent', theirs: `${participant.name} (${participant.kind})` });
      } else {
        namesCompared += 1;
        if (sameBankName(name, participant.name)) namesMatching += 1;
        else disagreements.push({ key: `${code} name`, ours: name, theirs: participant.name });
      }
    }

    return {
      name: 'banks',
      reference: `${reference.title}, transcribed ${reference.retrieved} (${reference.transcription.repository} ${reference.transcription.commit.slice(0, 7)})`,
      figures: {
        banksCompared: served.length,
        participantsListed: reference.participants.length,
        codesEqual: ratio(served.length - notListed.length, served.length),
        participantsServed: ratio(reference.participants.length - notServed.length, reference.participants.length),
        namesMatching: ratio(namesMatching, namesCompared),
      },
      targets: { codesEqual: 0.95, namesMatching: 0.85 },
      disagreements,
      detail: { servedNotListed: notListed, listedNotServed: notServed, namesCompared },
    };
  },
};
