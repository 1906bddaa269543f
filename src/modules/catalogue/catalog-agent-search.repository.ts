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

/** Word similarity (pg_trgm) a question word needs with an item's text to make the item a candidate. */
const CANDIDATE_WORD_SIMILARITY = '0.5';
/** Candidates per question word (the most similar first). */
const CANDIDATES_PER_TERM = 60;

/**
 * The built-in AI agent's catalogue search (DESIGN §9), on the database: the search columns of
 * migration 1763913000000 (lower-case, unaccented name / SKU / category / keywords), a GIN trigram
 * index to find candidates for each word of the question even when misspelt (`<%`, word
 * similarity), then, per candidate and word, the best match in each field: the word or one of its
 * forms exactly (1.0), or within a small Levenshtein distance (`fuzzystrmatch`) of a word of the same
 * length and first letter (0.8) — so "kettel" finds "kettle" but "kettlebell" does not. SKUs match
 * exactly after dropping everything but letters and digits. On-sale items of the caller's workspace only.
 */
@Injectable()
export class CatalogAgentSearchRepository extends WorkspaceScopedRepository<CatalogItemEntity> {
  constructor(tx: TransactionHost) {
    super(tx, CatalogItemEntity, 'ci', 'Catalogue item');
  }

  search(terms: readonly AgentSearchTerm[], skus: readonly string[], limit: number): Promise<AgentSearchRow[]> {
    if (terms.length === 0 && skus.length === 0) return Promise.resolve([]);
    return this.transaction(async () => {
      // For this statement only: the trigram threshold; no JIT (the row estimates of
      // jsonb_to_recordset / regexp_split_to_table are large, and compiling cost seconds for a
      // query that runs in milliseconds); the trigram index rather than a scan of the workspace
      // (word_similarity on the index's matches only). The settings are put back afterwards.
      // ($1 is always the caller's workspace.)
      //
      // One statement: whether the workspace has an item on sale at all (no catalogue: nothing to
      // search, nothing set, one round trip), and if so the three settings (`jit` only where the
      // server has it). Select-list expressions run left to right: the old values are read first.
      const [previous] = await this.queryRows<{ has_items: boolean; seqscan: string; jit: string | null }>(
        `WITH s AS (
           SELECT EXISTS (SELECT 1 FROM catalog_items i WHERE i.workspace_id = $1 AND i.status = 'ON_SALE') AS has_items,
                  current_setting('enable_seqscan') AS seqscan, current_setting('jit', true) AS jit
         )
         SELECT s.has_items, s.seqscan, s.jit,
                CASE WHEN s.has_items THEN set_config('pg_trgm.word_similarity_threshold', $2, true) END AS threshold,
                CASE WHEN s.has_items THEN set_config('enable_seqscan', 'off', true) END AS seqscan_off,
                CASE WHEN s.has_items AND s.jit IS NOT NULL THEN set_config('jit', 'off', true) END AS jit_off
           FROM s`,
        [CANDIDATE_WORD_SIMILARITY],
      );
      if (!previous?.has_items) return [];
      const rows = await this.queryRows<AgentSearchRow>(
        `WITH terms AS (
           SELECT x.ord, x.t, x.v FROM jsonb_to_recordset($2::jsonb) AS x(ord int, t text, v text[])
         ),
         cand AS (
           SELECT c.id FROM terms CROSS JOIN LATERAL (
             SELECT m.id FROM (
               -- only the trigram index can answer this (the fence keeps the workspace's b-trees out)
               SELECT i.id, i.workspace_id, i.status, i.agent_search FROM catalog_items i
               WHERE i.agent_search %> terms.t OFFSET 0
             ) m
             WHERE m.workspace_id = $1 AND m.status = 'ON_SALE'
             ORDER BY word_similarity(terms.t, m.agent_search) DESC
             LIMIT ${CANDIDATES_PER_TERM}
           ) c
           UNION
           SELECT i.id FROM catalog_items i
           WHERE i.workspace_id = $1 AND i.status = 'ON_SALE' AND i.agent_sku <> '' AND i.agent_sku = ANY($3::text[])
         ),
         words AS (
           SELECT DISTINCT i.id, f.field, w.word
           FROM cand JOIN catalog_items i ON i.workspace_id = $1 AND i.id = cand.id
           CROSS JOIN LATERAL (VALUES ('name', i.agent_name), ('keywords', i.agent_keywords), ('category', i.agent_category)) AS f(field, txt)
           CROSS JOIN LATERAL regexp_split_to_table(f.txt, '[^a-z0-9]+') AS w(word)
           WHERE w.word <> ''
         ),
         hits AS (
           SELECT words.id, terms.ord, words.field,
             max(CASE
               WHEN words.word = ANY(terms.v) THEN 1.0
               WHEN length(terms.t) >= 4 AND left(words.word, 1) = left(terms.t, 1)
                 AND abs(length(words.word) - length(terms.t)) <= 1
                 AND levenshtein(words.word, terms.t) <= CASE WHEN length(terms.t) >= 6 THEN 2 ELSE 1 END THEN 0.8
               ELSE 0 END) AS score
           FROM words CROSS JOIN terms
           GROUP BY words.id, terms.ord, words.field
         ),
         sku_hits AS (
           SELECT i.id, -1 AS ord, 'sku' AS field, 1.0 AS score
           FROM cand JOIN catalog_items i ON i.workspace_id = $1 AND i.id = cand.id
           WHERE i.agent_sku <> '' AND i.agent_sku = ANY($3::text[])
         ),
         all_hits AS (
           SELECT id, ord, field, score FROM hits WHERE score > 0
           UNION ALL SELECT id, ord, field, score FROM sku_hits
         ),
         ranked AS (
           SELECT id, jsonb_agg(jsonb_build_object('ord', ord, 'field', field, 'score', score)) AS hits, sum(score) AS total
           FROM all_hits GROUP BY id
           ORDER BY total DESC, id
           LIMIT $4
         )
         SELECT i.id, i.name, i.price, i.currency, i.description, i.sku, i.category, i.stock, i.images, ranked.hits
         FROM ranked JOIN catalog_items i ON i.workspace_id = $1 AND i.id = ranked.id
         ORDER BY ranked.total DESC, i.id`,
        [JSON.stringify(terms.map((t) => ({ ord: t.ord, t: t.text, v: t.forms }))), [...skus], limit],
      );
      await this.query(
        `SELECT $1::uuid AS workspace, set_config('enable_seqscan', $2, true)${previous?.jit ? `, set_config('jit', $3, true)` : ''}`,
        previous?.jit ? [previous.seqscan, previous.jit] : [previous?.seqscan ?? 'on'],
      );
      return rows.map((r) => ({ ...r, hits: r.hits.map((h) => ({ ...h, score: Number(h.score) })) }));
    });
  }
}
