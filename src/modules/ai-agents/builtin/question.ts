import { type Intent, type LanguagePack, detectLanguage, irregularForms, isKnownWord, normalizeText } from './language';

/** A word of the question the catalogue is searched for. */
export interface QuestionTerm {
  /** Position among the question's words (adjacency matters: "electric scooter" is one phrase). */
  readonly ord: number;
  readonly text: string;
  /** The word and its singular / plural forms (English and Spanish rules). */
  readonly forms: string[];
  /** An intent or number word: helps when it matches ("Stock Pot"), costs nothing when it does not. */
  readonly optional: boolean;
}

export interface ParsedQuestion {
  readonly language: LanguagePack;
  readonly intents: Intent[];
  readonly terms: QuestionTerm[];
  /** Letters and digits only, for SKU look-ups: every chunk with a digit, and such chunks joined to neighbours. */
  readonly skus: string[];
  /** Only greetings / filler: nothing to look up. */
  readonly smallTalk: boolean;
  readonly words: string[];
}

const MAX_TERMS = 16;

/** Singular and plural forms of a word (English: -s, -es, -ies; Spanish: -s, -es, -ces). */
export function wordForms(word: string): string[] {
  const forms = new Set([word, ...irregularForms(word)]);
  if (word.length > 3) {
    if (word.endsWith('ies')) forms.add(`${word.slice(0, -3)}y`);
    if (word.endsWith('ces')) forms.add(`${word.slice(0, -3)}z`);
    if (word.endsWith('es')) forms.add(word.slice(0, -2));
    if (word.endsWith('s') && !word.endsWith('ss')) forms.add(word.slice(0, -1));
  }
  if (word.length > 2) {
    if (!word.endsWith('s')) forms.add(`${word}s`);
    forms.add(`${word}es`);
    if (word.endsWith('y')) forms.add(`${word.slice(0, -1)}ies`);
    if (word.endsWith('z')) forms.add(`${word.slice(0, -1)}ces`);
  }
  return [...forms];
}

/** Splits a customer's message into what it asks (intents) and what it asks about (terms, SKUs). */
export function parseQuestion(message: string): ParsedQuestion {
  const normalized = normalizeText(message).replace(/['’]/g, '');
  const words = normalized.split(/[^a-z0-9]+/).filter(Boolean);
  const language = detectLanguage(words);
  const intents = new Set<Intent>();
  const terms: QuestionTerm[] = [];
  let content = 0;
  words.forEach((word, ord) => {
    const known = isKnownWord(word);
    known.intents.forEach((i) => intents.add(i));
    if (known.filler && known.intents.length === 0) return;
    const numeric = /^\d+$/.test(word);
    if (word.length < 2 && !numeric) return;
    const optional = known.intents.length > 0 || numeric || known.filler;
    if (!optional) content++;
    if (terms.length < MAX_TERMS) terms.push({ ord, text: word, forms: wordForms(word), optional });
  });
  return {
    language,
    intents: [...intents],
    terms,
    skus: skuCandidates(normalized),
    smallTalk: content === 0 && intents.size === 0,
    words,
  };
}

function skuCandidates(normalized: string): string[] {
  const chunks = normalized
    .split(/\s+/)
    .map((c) => c.replace(/[^a-z0-9]/g, ''))
    .filter(Boolean);
  const out = new Set<string>();
  for (let i = 0; i < chunks.length; i++) {
    let joined = '';
    for (let j = i; j < Math.min(i + 3, chunks.length); j++) {
      joined += chunks[j];
      if (/\d/.test(joined) && /[a-z]/.test(joined) && joined.length >= 3) out.add(joined);
    }
    if (/^[a-z]+\d+[a-z0-9]*$|^\d{4,}$/.test(chunks[i] as string)) out.add(chunks[i] as string);
  }
  return [...out].slice(0, 40);
}
