/**
 * The languages of the lookups whose names come in several (contract/routes.ts `languages`): which
 * languages each parent's records are in, for the manifest, and what a record's names are in each,
 * for the bodies (bodies.ts writes a language's body only where its names differ from the own).
 */
import { languageKey } from '../../contract/keys.ts';
import type { Manifest } from '../../contract/manifest.ts';
import type { RouteLanguages } from '../../contract/routes.ts';
import type { DataRecord } from './schemas.ts';
import { compareCodePoints } from './ordering.ts';

/** Another language of a parent: its tag (`en-US`) and the key its bodies are named with (`en`). */
export interface OtherLanguage {
  readonly tag: string;
  readonly key: string;
}

const translationsOf = (record: DataRecord, languages: RouteLanguages): Readonly<Record<string, string>> =>
  (record[languages.translationsField] as Record<string, string> | undefined) ?? {};

/** The languages of each parent's records, gathered record by record (one parent: a country). */
export class ParentLanguages {
  readonly #own = new Map<string, Set<string>>();
  readonly #others = new Map<string, Set<string>>();

  add(parent: string, record: DataRecord, languages: RouteLanguages): void {
    const own = this.#own.get(parent) ?? new Set<string>();
    own.add(String(record[languages.languageField]));
    this.#own.set(parent, own);
    const others = this.#others.get(parent) ?? new Set<string>();
    for (const tag of Object.keys(translationsOf(record, languages))) others.add(tag);
    this.#others.set(parent, others);
  }

  /**
   * A parent's records must share one own language (its default body is in it), and may have one
   * variety of each other language (one body per language key).
   */
  problems(): string[] {
    const problems: string[] = [];
    for (const [parent, own] of this.#own) {
      if (own.size > 1) problems.push(`the records of ${parent} name their days in ${[...own].join(' and ')}: one language per country`);
      const tags = [...own, ...(this.#others.get(parent) ?? [])];
      const keys = tags.map((tag) => (languageKey(tag).ok ? languageKey(tag) : undefined));
      for (const [position, key] of keys.entries()) {
        if (!key?.ok) problems.push(`the records of ${parent} have names in "${tags[position]}", which is no language tag`);
        else if (keys.findIndex((other) => other?.ok && other.key === key.key) !== position)
          problems.push(`the records of ${parent} have names in ${tags[position]} and another ${key.key}: one of each language`);
      }
    }
    return problems;
  }

  /** A parent's other languages, in tag order. */
  others(parent: string): OtherLanguage[] {
    const own = this.#own.get(parent) ?? new Set();
    return [...(this.#others.get(parent) ?? [])]
      .filter((tag) => !own.has(tag))
      .sort()
      .flatMap((tag) => {
        const key = languageKey(tag);
        return key.ok ? [{ tag, key: key.key }] : [];
      });
  }

  /** manifest.json `languages`: each parent's own language, then its others. */
  toManifest(): Manifest['languages'] {
    const entries = [...this.#own].map(([parent, own]): [string, string[]] => [parent, [...own, ...this.others(parent).map(({ tag }) => tag)]]);
    return Object.fromEntries(entries.sort(([a], [b]) => compareCodePoints(a, b)));
  }
}

/** The record's text in language `tag` where it has it, its own otherwise. */
export function textIn(record: DataRecord, languages: RouteLanguages, tag: string): unknown {
  return translationsOf(record, languages)[tag] ?? record[languages.field];
}
