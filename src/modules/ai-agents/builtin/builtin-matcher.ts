import type { AgentSearchRow } from 'src/modules/catalogue';
import type { ParsedQuestion, QuestionTerm } from './question';

/** How much a match in each field says about which product is meant. */
const FIELD_WEIGHT = { sku: 3, name: 1, keywords: 0.9, category: 0.6 } as const;
/** At most this many products in one answer (a category question lists a few). */
export const MAX_ANSWER_ITEMS = 5;

export interface MatchResult {
  /** Chosen items, best first; empty = no confident match. */
  readonly items: AgentSearchRow[];
  /** Why nothing was chosen (for the run record). */
  readonly reason: string | null;
}

interface Scored {
  readonly row: AgentSearchRow;
  /** term ord → best weighted score. */
  readonly byTerm: Map<number, { score: number; field: keyof typeof FIELD_WEIGHT }>;
  readonly sku: boolean;
  total: number;
}

/**
 * Decides which products the question is about, from the database's per-word matches:
 *
 * 1. An exact SKU wins.
 * 2. Each word counts by how specific it is (a word many candidates share counts less) and by the
 *    field it matched (name > keywords > category).
 * 3. Greedy cover: the best item, then items that explain words the chosen ones do not ("the
 *    kettle and the toaster").
 * 4. No confident match when the only link is a word glued to one nobody explains: "electric
 *    scooter" is not the "Electric Kettle" (the adjacent unknown word is the product asked for).
 * 5. Items tied with the best (same words, same quality: "kettles") are listed together.
 */
export function chooseItems(question: ParsedQuestion, rows: readonly AgentSearchRow[]): MatchResult {
  if (rows.length === 0) return { items: [], reason: 'no catalogue item matches the question' };
  const termByOrd = new Map(question.terms.map((t) => [t.ord, t]));
  const df = new Map<number, number>();
  for (const row of rows) {
    for (const ord of new Set(row.hits.map((h) => h.ord))) df.set(ord, (df.get(ord) ?? 0) + 1);
  }
  const idf = (ord: number): number => 1 + Math.log(1 + rows.length / (df.get(ord) ?? 1));

  const scored: Scored[] = rows.map((row) => {
    const byTerm = new Map<number, { score: number; field: keyof typeof FIELD_WEIGHT }>();
    let sku = false;
    for (const hit of row.hits) {
      if (hit.field === 'sku') {
        sku = true;
        continue;
      }
      const score = hit.score * FIELD_WEIGHT[hit.field];
      const prev = byTerm.get(hit.ord);
      if (!prev || prev.score < score) byTerm.set(hit.ord, { score, field: hit.field });
    }
    let total = sku ? FIELD_WEIGHT.sku * 4 : 0;
    for (const [ord, s] of byTerm) total += s.score * idf(ord) * (termByOrd.get(ord)?.optional ? 0.5 : 1);
    return { row, byTerm, sku, total };
  });

  const skuItems = scored.filter((s) => s.sku);
  if (skuItems.length > 0) {
    const rest = cover(
      question,
      scored.filter((s) => !s.sku),
      new Set(skuItems.flatMap((s) => [...s.byTerm.keys()])),
    );
    return { items: [...skuItems, ...rest].slice(0, MAX_ANSWER_ITEMS).map((s) => s.row), reason: null };
  }
  const chosen = cover(question, scored, new Set());
  if (chosen.length === 0) return { items: [], reason: 'no confident match' };
  return {
    items: withCategory(question, chosen, scored)
      .slice(0, MAX_ANSWER_ITEMS)
      .map((s) => s.row),
    reason: null,
  };
}

/**
 * A question made only of category words ("what coffee products do you have?") is about the
 * category: the items named after it come first, then the rest of the category.
 */
function withCategory(question: ParsedQuestion, chosen: Scored[], scored: Scored[]): Scored[] {
  const content = question.terms.filter((t) => !t.optional).map((t) => t.ord);
  if (content.length === 0) return chosen;
  const categoryTerms = new Set(
    scored.flatMap((s) => [...s.byTerm.entries()].filter(([, v]) => v.field === 'category').map(([ord]) => ord)),
  );
  // byTerm keeps the best field per word; look at the raw hits for category matches too.
  for (const s of scored)
    for (const h of s.row.hits) if (h.field === 'category' && h.score >= 1) categoryTerms.add(h.ord);
  if (!content.every((ord) => categoryTerms.has(ord))) return chosen;
  const inCategory = scored.filter(
    (s) =>
      !chosen.includes(s) && s.row.hits.some((h) => h.field === 'category' && content.includes(h.ord) && h.score >= 1),
  );
  return [...chosen, ...inCategory];
}

/** Does an item explain the word with more than a category guess or an optional word? */
function strongHits(item: Scored, terms: Map<number, QuestionTerm>): number[] {
  return [...item.byTerm.entries()]
    .filter(([ord, s]) => s.field !== 'category' && !terms.get(ord)?.optional && s.score >= 0.7)
    .map(([ord]) => ord);
}

function cover(question: ParsedQuestion, candidates: Scored[], alreadyCovered: Set<number>): Scored[] {
  const terms = new Map(question.terms.map((t) => [t.ord, t]));
  const explained = new Set<number>();
  for (const item of candidates) for (const ord of item.byTerm.keys()) explained.add(ord);
  const unknown = question.terms.filter((t) => !t.optional && !explained.has(t.ord)).map((t) => t.ord);

  const confident = candidates.filter((item) => {
    const strong = strongHits(item, terms);
    const matched = [...item.byTerm.keys()].filter((ord) => !terms.get(ord)?.optional);
    if (matched.length === 0) return false;
    if (strong.length === 0 && !matched.some((ord) => item.byTerm.get(ord)?.field === 'category')) return false;
    // An unexplained word right next to the item's words names something else ("electric scooter").
    const glued = unknown.filter((u) => matched.some((m) => Math.abs(m - u) === 1)).length;
    if (glued >= matched.length && matched.length < 2) return false;
    // One short word ("pro", "set", "led") beside words nobody explains is not a product named.
    const only = matched.length === 1 ? terms.get(matched[0] as number) : undefined;
    return !(only && only.text.length <= 3 && unknown.length > 0);
  });
  if (confident.length === 0) return [];

  // The head noun of a phrase is its last word in English ("electric scooter"), its first in Spanish.
  const headBonus = (ord: number): number => (question.language.language === 'es' ? 1 - ord * 0.001 : 1 + ord * 0.001);
  const chosen: Scored[] = [];
  const covered = new Set(alreadyCovered);
  let pool = [...confident].sort((a, b) => b.total - a.total || a.row.id.localeCompare(b.row.id));
  while (pool.length > 0 && chosen.length < MAX_ANSWER_ITEMS) {
    const gain = (s: Scored): number =>
      [...s.byTerm.entries()]
        .filter(([ord]) => !covered.has(ord) && !terms.get(ord)?.optional)
        .reduce((sum, [ord, v]) => sum + v.score * headBonus(ord), 0);
    pool.sort((a, b) => gain(b) - gain(a) || b.total - a.total);
    const best = pool[0] as Scored;
    if (gain(best) <= 0) break;
    // Items as good as the best on the same words: list them together ("do you have kettles?").
    const sameWords = pool.filter(
      (s) => sameKeys(s, best) && Math.abs(s.total - best.total) < 1e-6 * Math.max(1, best.total) + 0.05 * best.total,
    );
    const group = sameWords.length > 1 ? sameWords : [best];
    chosen.push(...group);
    for (const s of group) for (const ord of s.byTerm.keys()) covered.add(ord);
    pool = pool.filter((s) => !group.includes(s));
    // A second product must explain a word of its own with its name, not only a shared adjective.
    pool = pool.filter((s) => strongHits(s, terms).some((ord) => !covered.has(ord)));
    pool = pool.filter((s) => !phraseSplit(s, chosen, terms));
  }
  return chosen;
}

function sameKeys(a: Scored, b: Scored): boolean {
  const ka = [...a.byTerm.keys()].sort().join(',');
  const kb = [...b.byTerm.keys()].sort().join(',');
  return ka === kb;
}

/**
 * An item whose only new word is glued to a chosen item's word, in one phrase nobody explains
 * whole: "electric scooter" with a "Kick Scooter" chosen must not add the "Electric Kettle".
 */
function phraseSplit(item: Scored, chosen: Scored[], terms: Map<number, QuestionTerm>): boolean {
  const own = [...item.byTerm.keys()].filter((ord) => !terms.get(ord)?.optional);
  return own.every((ord) =>
    chosen.some((c) => [...c.byTerm.keys()].some((k) => Math.abs(k - ord) === 1 && !item.byTerm.has(k))),
  );
}
