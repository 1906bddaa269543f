import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { CatalogItemEntity, type CatalogPrice } from './catalog-item.entity';

/** One word of the customer's question as the matcher sends it (already lower-case and unaccented). */
export interface AgentSearchTerm {
  /** Position of the word in the question. */
  readonly ord: number;
  /** The word as written. */
  readonly text: string;
  /** Forms that count as the same word: the word itself, its singulars / plurals. */
  readonly forms: readonly string[];
  /** An intent or filler word ("price", "photo"): it scores when it matches, an item need not have it. */
  readonly optional?: boolean;
}

/** How one item matched one term: in which field, how well (1 = the word or one of its forms, < 1 = a typo). */
export interface AgentSearchHit {
  readonly ord: number;
  readonly field: 'name' | 'keywords' | 'category' | 'sku';
  readonly score: number;
}

/** A candidate item with its hits: the facts the agent answers from, plus how it matched. */
export interface AgentSearchRow {
  readonly id: string;
  readonly name: string | null;
  readonly price: CatalogPrice | null;
  readonly currency: string | null;
  readonly description: string | null;
  readonly sku: string | null;
  readonly category: string | null;
  readonly stock: number | null;
  readonly images: string[];
  readonly hits: AgentSearchHit[];
}

/** One question as the matcher sends it: its words and the SKU-like chunks to look up exactly. */
export interface AgentSearchQuestion {
  readonly terms: readonly AgentSearchTerm[];
  readonly skus: readonly string[];
}

/** Trigram word similarity (pg_trgm) a misspelt word needs to find items on its own: "correr" does not find the "cover". */
const TYPO_WORD_SIMILARITY = 0.5;

/**
 * The built-in AI agent's catalogue search (DESIGN §9), on the database, in one statement driven by
 * indexes (migration 1764001000000):
 *
 * 1. Each question word stands for its forms (exact, score 1.0) and for the workspace's vocabulary
 *    words within a small Levenshtein distance (`fuzzystrmatch`) of the same first letter and length
 *    ± 1 (0.8) — so "kettel" matches "kettle" but "kettlebell" does not. The vocabulary index (first
 *    letter, length) keeps that to a few words.
 * 2. Those words, tagged by field (`n:` name, `k:` keywords, `c:` category), find the items through
 *    the GIN index on `agent_words` (lower-case, unaccented words of name / category / keywords). A
 *    misspelling finds items only when it is also trigram-similar (`pg_trgm` word similarity ≥ 0.5:
 *    "kettel" → "kettle", not "correr" → "cover"); a looser one ("speeker") still counts for items
 *    another word of the question found ("bluetooth speeker").
 *    Items having every non-optional word of the question (GIN: one `&&` per word, intersected by
 *    the index) are the candidates when there are any ("aurora kettle": the Aurora kettles, not
 *    every Aurora product and every kettle); otherwise items having any of the words ("the kettle
 *    and the toaster", "electric scooter" when no item has both), for the matcher to choose from.
 * 3. Per item and question word, the best match in each field; SKUs match exactly after dropping
 *    everything but letters and digits. The best `limit` items by total score, on-sale items of the
 *    caller's workspace only.
 *
 * Every question of a call is searched by the same statement (`searchMany`), each on its own.
 */
@Injectable()
export class CatalogAgentSearchRepository extends WorkspaceScopedRepository<CatalogItemEntity> {
  constructor(tx: TransactionHost) {
    super(tx, CatalogItemEntity, 'ci', 'Catalogue item');
  }

  /** Whether the workspace has an item on sale (what the search can find): one probe of the (workspace, status) index. */
  async hasItemsOnSale(): Promise<boolean> {
    const rows = await this.queryRows<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM catalog_items WHERE workspace_id = $1 AND status = 'ON_SALE') AS found`,
    );
    return rows[0]?.found === true;
  }

  /**
   * Several questions in ONE statement (issue 16 item 3: a pipeline group's questions share one
   * search), each ranked exactly as alone: every CTE carries the question's index `q`, the
   * candidates are found per question by a LATERAL probe of the same GIN index (the question's
   * required words as up to `slots` arrays — a question with fewer repeats its last one, AND being
   * idempotent), and the best `limit` per question. Answers one list per question, in order.
   */
  async searchMany(questions: readonly AgentSearchQuestion[], limit: number): Promise<AgentSearchRow[][]> {
    const lists: AgentSearchRow[][] = questions.map(() => []);
    const asked = questions.flatMap((question, q) =>
      question.terms.length > 0 || question.skus.length > 0 ? [{ q, question }] : [],
    );
    if (asked.length === 0) return lists;
    // Per question, the positions of the words an item should have all of (integers from the parser).
    const required = asked.map(({ question }) => [
      ...new Set(question.terms.filter((t) => !t.optional).map((t) => Math.trunc(Number(t.ord)))),
    ]);
    const slots = Math.max(0, ...required.map((r) => r.length));
    const slot = (k: number): string =>
      `ARRAY(SELECT t.token FROM tokens t WHERE t.q = x.q AND t.finds AND t.ord = x.r[least(${k}, cardinality(x.r))])`;
    const rows = await this.queryRows<AgentSearchRow & { q: number }>(
      `WITH terms AS (
         SELECT x.q, x.ord, x.t, x.v FROM jsonb_to_recordset($2::jsonb) AS x(q int, ord int, t text, v text[])
       ),
       term_words AS (
         SELECT terms.q, terms.ord, f.word, 1.0 AS score, true AS finds
         FROM terms CROSS JOIN LATERAL unnest(terms.v) AS f(word)
         UNION ALL
         SELECT terms.q, terms.ord, v.word, 0.8, word_similarity(terms.t, v.word) >= ${TYPO_WORD_SIMILARITY}
         FROM terms JOIN catalog_agent_vocabulary v
           ON v.workspace_id = $1 AND left(v.word, 1) = left(terms.t, 1)
          AND length(v.word) BETWEEN length(terms.t) - 1 AND length(terms.t) + 1
          AND levenshtein(v.word, terms.t) <= CASE WHEN length(terms.t) >= 6 THEN 2 ELSE 1 END
         WHERE length(terms.t) >= 4
       ),
       tokens AS (
         SELECT tw.q, f.tag || tw.word AS token, tw.ord, f.field, max(tw.score) AS score, bool_or(tw.finds) AS finds
         FROM term_words tw CROSS JOIN (VALUES ('n:', 'name'), ('k:', 'keywords'), ('c:', 'category')) AS f(tag, field)
         GROUP BY tw.q, f.tag || tw.word, tw.ord, f.field
       ),
       questions AS MATERIALIZED (
         SELECT x.q, cardinality(x.r) > 0 AS has_required,
                ARRAY(SELECT t.token FROM tokens t WHERE t.q = x.q AND t.finds) AS any_word
                ${Array.from({ length: slots }, (_, k) => `, ${slot(k + 1)} AS r${k + 1}`).join('')}
         FROM jsonb_to_recordset($3::jsonb) AS x(q int, r int[])
       ),
       ${
         slots > 0
           ? `every_word AS (
         SELECT qs.q, i.id, i.agent_words FROM questions qs CROSS JOIN LATERAL (
           SELECT i.id, i.agent_words FROM catalog_items i
           WHERE ${Array.from({ length: slots }, (_, k) => `i.agent_words && qs.r${k + 1}`).join(' AND ')}
             AND i.status = 'ON_SALE' AND i.workspace_id = $1
         ) i
         WHERE qs.has_required
       ),`
           : ''
       }
       cand AS (
         ${slots > 0 ? 'SELECT q, id, agent_words FROM every_word UNION ALL' : ''}
         SELECT qs.q, i.id, i.agent_words FROM questions qs CROSS JOIN LATERAL (
           SELECT i.id, i.agent_words FROM catalog_items i
           WHERE i.agent_words && qs.any_word AND i.status = 'ON_SALE' AND i.workspace_id = $1
         ) i
         ${slots > 0 ? 'WHERE NOT EXISTS (SELECT 1 FROM every_word e WHERE e.q = qs.q)' : ''}
       ),
       skus AS (
         SELECT DISTINCT s.q, s.sku FROM jsonb_to_recordset($4::jsonb) AS s(q int, sku text)
       ),
       all_hits AS (
         SELECT cand.q, cand.id, tokens.ord, tokens.field, max(tokens.score) AS score
         FROM cand CROSS JOIN LATERAL unnest(cand.agent_words) AS w(token)
         JOIN tokens ON tokens.q = cand.q AND tokens.token = w.token
         GROUP BY cand.q, cand.id, tokens.ord, tokens.field
         UNION ALL
         SELECT skus.q, i.id, -1, 'sku', 1.0 FROM skus JOIN catalog_items i
           ON i.workspace_id = $1 AND i.status = 'ON_SALE' AND i.agent_sku <> '' AND i.agent_sku = skus.sku
       ),
       ranked AS (
         SELECT q, id, jsonb_agg(jsonb_build_object('ord', ord, 'field', field, 'score', score) ORDER BY ord, field) AS hits,
                sum(score) AS total, row_number() OVER (PARTITION BY q ORDER BY sum(score) DESC, id) AS rank
         FROM all_hits GROUP BY q, id
       )
       SELECT ranked.q, i.id, i.name, i.price, i.currency, i.description, i.sku, i.category, i.stock, i.images, ranked.hits
       FROM ranked JOIN catalog_items i ON i.workspace_id = $1 AND i.id = ranked.id
       WHERE ranked.rank <= $5
       ORDER BY ranked.q, ranked.total DESC, i.id`,
      [
        JSON.stringify(
          asked.flatMap(({ q, question }) => question.terms.map((t) => ({ q, ord: t.ord, t: t.text, v: t.forms }))),
        ),
        JSON.stringify(asked.map(({ q }, n) => ({ q, r: required[n] }))),
        JSON.stringify(asked.flatMap(({ q, question }) => question.skus.map((sku) => ({ q, sku })))),
        limit,
      ],
    );
    for (const { q, ...row } of rows) {
      lists[q]!.push({ ...row, hits: row.hits.map((h) => ({ ...h, score: Number(h.score) })) });
    }
    return lists;
  }
}
