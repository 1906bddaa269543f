/** The shape of one language's data file (`intents.<lang>.ts`). */
export const INTENTS = ['price', 'stock', 'photo', 'description'] as const;
export type Intent = (typeof INTENTS)[number];

export interface AnswerTexts {
  readonly price: string;
  readonly noPrice: string;
  readonly outOfStock: string;
  readonly inStock: string;
  readonly available: string;
  readonly description: string;
  readonly photo: string;
  readonly noPhoto: string;
  readonly several: string;
  readonly greeting: string;
  readonly priceAndStock: string;
  readonly inStockShort: string;
  readonly outOfStockShort: string;
}

/** One language's data: intent words, filler words and answer texts (see docs/ai-agents.md). */
export interface LanguageFile {
  language: string;
  intents: Record<Intent, string[]>;
  filler: string[];
  answers: AnswerTexts;
  irregularPlurals?: Record<string, string>;
}
