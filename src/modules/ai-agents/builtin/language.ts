import { EN } from './intents.en';
import { ES } from './intents.es';
import { type AnswerTexts, INTENTS, type Intent, type LanguageFile } from './language-file';

export { type AnswerTexts, INTENTS, type Intent } from './language-file';

/** One language's data file (`intents.<lang>.ts`): intent words, filler words and answer texts. */
export interface LanguagePack {
  readonly language: string;
  readonly intentOf: ReadonlyMap<string, Intent[]>;
  readonly filler: ReadonlySet<string>;
  readonly answers: AnswerTexts;
  /** Plurals no rule forms ("mice" → "mouse"). */
  readonly irregularPlurals: ReadonlyMap<string, string>;
}

function load(file: LanguageFile): LanguagePack {
  const intentOf = new Map<string, Intent[]>();
  for (const intent of INTENTS) {
    for (const word of file.intents[intent]) {
      const key = normalizeText(word);
      intentOf.set(key, [...(intentOf.get(key) ?? []), intent]);
    }
  }
  return {
    language: file.language,
    intentOf,
    filler: new Set(file.filler.map(normalizeText)),
    answers: file.answers,
    irregularPlurals: new Map(Object.entries(file.irregularPlurals ?? {})),
  };
}

/** Lower case, accents dropped ("Café Crème" → "cafe creme"), the way the catalogue's search columns are. */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** The shipped languages; the first is the default. Add a language by adding its data file here. */
export const LANGUAGES: readonly LanguagePack[] = [load(EN), load(ES)];

/** The language whose intent and filler words the question uses most (English when undecided). */
export function detectLanguage(words: readonly string[]): LanguagePack {
  let best = LANGUAGES[0] as LanguagePack;
  let bestCount = 0;
  for (const pack of LANGUAGES) {
    const count = words.filter((w) => pack.filler.has(w) || pack.intentOf.has(w)).length;
    if (count > bestCount) {
      best = pack;
      bestCount = count;
    }
  }
  return best;
}

export function isKnownWord(word: string): { filler: boolean; intents: Intent[] } {
  let filler = false;
  const intents = new Set<Intent>();
  for (const pack of LANGUAGES) {
    if (pack.filler.has(word)) filler = true;
    for (const i of pack.intentOf.get(word) ?? []) intents.add(i);
  }
  return { filler, intents: [...intents] };
}

/** The singular and plural of an irregular word in any shipped language ("mice" ↔ "mouse"). */
export function irregularForms(word: string): string[] {
  const out: string[] = [];
  for (const pack of LANGUAGES) {
    const singular = pack.irregularPlurals.get(word);
    if (singular) out.push(singular);
    for (const [plural, single] of pack.irregularPlurals) if (single === word) out.push(plural);
  }
  return out;
}
