import { Injectable } from '@nestjs/common';
import { type AgentSearchRow, CatalogAgentSearch, formatPriceDisplay } from 'src/modules/catalogue';
import { MAX_ANSWER_ITEMS, type MatchResult, chooseItems } from './builtin-matcher';
import { type Intent, type LanguagePack, normalizeText } from './language';
import { type ParsedQuestion, parseQuestion } from './question';

/** Candidates fetched from the catalogue per question. */
const CANDIDATES = 40;
/** Earlier customer messages looked at when a question names no product ("how much is it?"). */
const CONTEXT_MESSAGES = 3;

export interface AgentImage {
  readonly url: string;
  readonly caption: string | null;
}

/** What an agent run decided: the text to send, the image(s), the items it is about, or a handoff. */
export interface AgentAnswer {
  readonly text: string;
  readonly items: string[];
  readonly images: AgentImage[];
  readonly handoff: boolean;
  /** Why it handed off (or why the LLM's answer was replaced); null when it simply answered. */
  readonly reason: string | null;
  /** The matched catalogue rows (the LLM gets them rendered by the catalogue's agent text). */
  readonly rows: AgentSearchRow[];
}

export interface AgentQuestion {
  readonly message: string;
  /** Earlier customer messages, oldest first (or how to read them: only asked for when the message names no product). */
  readonly previousCustomerMessages?: readonly string[] | (() => Promise<readonly string[]>);
  readonly handoffKeywords: readonly string[];
  readonly useCatalog: boolean;
}

/**
 * The BUILTIN agent (DESIGN §9): no network. Parses the question (intents and words, per language
 * data file), asks the catalogue's database search for candidates, chooses the products meant and
 * answers from their facts: price exactly as displayed with its currency, stock ("out of stock" at
 * 0, nothing about counts when stock is not counted), description, and the photo as an image. With
 * no confident match, or on a handoff keyword, it hands off.
 */
@Injectable()
export class BuiltinAgent {
  constructor(private readonly catalogue: CatalogAgentSearch) {}

  async answer(question: AgentQuestion): Promise<AgentAnswer> {
    const [answer] = await this.answerMany([question]);
    return answer!;
  }

  /**
   * Several questions (a pipeline group's, issue 16 item 3): the catalogue searched once for all of
   * them, each answered exactly as `answer` would alone. A question that names no product and needs
   * the customer's earlier messages searches for those on its own (rare).
   */
  async answerMany(questions: readonly AgentQuestion[]): Promise<AgentAnswer[]> {
    const parsed = questions.map((q) => parseQuestion(q.message));
    const early = questions.map((question): AgentAnswer | null => {
      const keyword = handoffKeyword(question.message, question.handoffKeywords);
      if (keyword) return handoff(`handoff keyword "${keyword}"`);
      if (!question.useCatalog) return handoff('the agent does not use the catalogue');
      return null;
    });
    const searched = parsed.filter((_, i) => early[i] === null);
    const found = await this.findItemsMany(searched);
    const answers: AgentAnswer[] = [];
    for (const [i, question] of questions.entries()) {
      answers.push(early[i] ?? (await this.answerFrom(question, parsed[i]!, found.shift()!)));
    }
    return answers;
  }

  /** The answer to a question whose own search found `rows` (earlier messages searched when it names nothing). */
  private async answerFrom(question: AgentQuestion, parsed: ParsedQuestion, found: MatchResult): Promise<AgentAnswer> {
    let rows = found;
    if (rows.items.length === 0 && (parsed.terms.every((t) => t.optional) || parsed.smallTalk)) {
      // "how much is it?": the product named in the customer's previous messages.
      const earlier = question.previousCustomerMessages;
      const previousMessages = typeof earlier === 'function' ? await earlier() : (earlier ?? []);
      for (const previous of [...previousMessages].reverse().slice(0, CONTEXT_MESSAGES)) {
        const earlier = await this.findItems(parseQuestion(previous));
        if (earlier.items.length > 0) {
          rows = earlier;
          break;
        }
      }
      if (rows.items.length === 0 && parsed.smallTalk) {
        return {
          text: parsed.language.answers.greeting,
          items: [],
          images: [],
          handoff: false,
          reason: null,
          rows: [],
        };
      }
    }
    if (rows.items.length === 0) return handoff(rows.reason ?? 'no confident match');
    return compose(parsed.language, parsed.intents, rows.items);
  }

  /** The catalogue items a question is about (used by the LLM path to give it context). */
  async findItems(parsed: ParsedQuestion): Promise<MatchResult> {
    const [found] = await this.findItemsMany([parsed]);
    return found!;
  }

  /** `findItems` for several questions, with one catalogue search for all of them. */
  private async findItemsMany(list: readonly ParsedQuestion[]): Promise<MatchResult[]> {
    const searchable = list.map((parsed) => ({
      terms: parsed.terms.filter((t) => t.text.length >= 2),
      skus: parsed.skus,
    }));
    const asked = searchable.filter((q) => q.terms.length > 0 || q.skus.length > 0);
    const rows = asked.length ? await this.catalogue.searchMany(asked, CANDIDATES) : [];
    return list.map((parsed, i) => {
      const q = searchable[i]!;
      if (q.terms.length === 0 && q.skus.length === 0) return { items: [], reason: 'the question names no product' };
      return chooseItems(parsed, rows.shift()!);
    });
  }
}

function handoff(reason: string): AgentAnswer {
  return { text: '', items: [], images: [], handoff: true, reason, rows: [] };
}

/** A handoff keyword as whole words, any case, accents ignored. */
export function handoffKeyword(message: string, keywords: readonly string[]): string | null {
  const text = ` ${normalizeText(message).replace(/[^a-z0-9]+/g, ' ')} `;
  for (const keyword of keywords) {
    const k = normalizeText(keyword)
      .replace(/[^a-z0-9]+/g, ' ')
      .trim();
    if (k && text.includes(` ${k} `)) return keyword;
  }
  return null;
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => values[key] ?? '');
}

/** "1,299.50 USD": the displayed price and the currency, exactly. */
export function priceText(row: Pick<AgentSearchRow, 'price' | 'currency'>): string | null {
  const display = formatPriceDisplay(row.price);
  if (display === null) return null;
  return row.currency?.trim() ? `${display} ${row.currency.trim()}` : display;
}

function lineFor(pack: LanguagePack, intent: Intent, row: AgentSearchRow): string | null {
  const name = row.name?.trim() || row.sku || '—';
  const a = pack.answers;
  switch (intent) {
    case 'price': {
      const price = priceText(row);
      return price ? fill(a.price, { name, price }) : fill(a.noPrice, { name });
    }
    case 'stock':
      if (row.stock === null) return fill(a.available, { name });
      return row.stock <= 0 ? fill(a.outOfStock, { name }) : fill(a.inStock, { name, stock: String(row.stock) });
    case 'description':
      return row.description?.trim() ? fill(a.description, { name, description: row.description.trim() }) : null;
    case 'photo':
      return row.images.length ? fill(a.photo, { name }) : fill(a.noPhoto, { name });
  }
}

function compose(pack: LanguagePack, asked: Intent[], items: AgentSearchRow[]): AgentAnswer {
  // Nothing specific asked: what a customer wants to know first, price and (if counted) stock.
  const intents: Intent[] = asked.length ? asked : ['price', 'stock'];
  const lines: string[] = [];
  const images: AgentImage[] = [];
  for (const row of items.slice(0, MAX_ANSWER_ITEMS)) {
    const parts: string[] = [];
    const price = priceText(row);
    if (intents.includes('price') && intents.includes('stock') && price !== null && row.stock !== null) {
      // Price and stock in one sentence: "Aurora Electric Kettle 1.7L: 49.90 USD, 12 in stock."
      const a = pack.answers;
      const stock = row.stock <= 0 ? a.outOfStockShort : fill(a.inStockShort, { stock: String(row.stock) });
      parts.push(fill(a.priceAndStock, { name: row.name?.trim() || row.sku || '—', price, stock }));
    }
    for (const intent of (['price', 'stock', 'description', 'photo'] as const).filter((i) => intents.includes(i))) {
      if (intent === 'stock' && row.stock === null && asked.length === 0) continue;
      if (parts.length && (intent === 'price' || intent === 'stock') && row.stock !== null && price !== null) continue;
      const line = lineFor(pack, intent, row);
      if (line) parts.push(line);
      if (intent === 'photo' && row.images[0]) images.push({ url: row.images[0], caption: row.name });
    }
    if (intents.includes('description') && !row.description?.trim() && !intents.includes('price')) {
      const price = lineFor(pack, 'price', row);
      if (price) parts.push(price);
    }
    if (parts.length) lines.push(items.length > 1 ? `- ${parts.join(' ')}` : parts.join('\n'));
  }
  const text = items.length > 1 ? [pack.answers.several, ...lines].join('\n') : lines.join('\n');
  return { text, items: items.map((r) => r.id), images, handoff: false, reason: null, rows: items };
}
