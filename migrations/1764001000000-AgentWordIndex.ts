import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The built-in AI agent's catalogue search as an inverted word index (issue 13: answer p95 < 50 ms
 * over 10,000 items). Replaces the per-field search columns and the trigram index of migration
 * 1763913000000, which found candidates by `word_similarity` over every item sharing trigrams with a
 * question word (hundreds of rows per word, each split into words again at query time).
 *
 * - `catalog_items.agent_words`: the item's words, lower-case and unaccented, each prefixed by the
 *   field it comes from (`n:` name, `c:` category, `k:` keywords): `{n:aurora,n:kettle,c:kitchen}`.
 *   A stored generated column, so every writer (feed, CSV, website sync, manual edits) keeps it.
 *   GIN index over on-sale items: a question's words (and their forms) find their items exactly.
 * - `catalog_agent_vocabulary (workspace_id, word)`: the distinct words (3+ characters) of the
 *   workspace's on-sale items, so a misspelt word ("kettel") is corrected against the vocabulary
 *   (same first letter, length ± 1, Levenshtein ≤ 1 or 2 — index on first letter and length) instead
 *   of against every item. Filled by statement-level triggers on catalog_items (one INSERT … SELECT
 *   per statement, words in sorted order so concurrent writers lock them in the same order). Words
 *   of removed items stay (harmless: a correction to a word no item has finds nothing).
 * - `agent_sku` (letters and digits of the SKU) and its index stay.
 */
export class AgentWordIndex1764001000000 implements MigrationInterface {
  name = 'AgentWordIndex1764001000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS catalog_items_agent_search_trgm_idx`);
    await q.query(`
      ALTER TABLE catalog_items
        DROP COLUMN agent_search, DROP COLUMN agent_keywords, DROP COLUMN agent_category, DROP COLUMN agent_name`);
    await q.query(`DROP FUNCTION catalog_agent_words(text[])`);
    // One unaccent() call per row (fields joined by U+001F, which neither unaccent nor a product name
    // produces), then each field's runs of letters and digits prefixed by the field's tag. PL/pgSQL:
    // a SQL function with a subquery is not inlined and costs ~3× more per row written.
    await q.query(`
      CREATE FUNCTION catalog_agent_tokens(name text, category text, keywords text[]) RETURNS text[]
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
        DECLARE
          t text := lower(public.unaccent('public.unaccent'::regdictionary,
            coalesce(name, '') || E'\\x1f' || coalesce(category, '') || E'\\x1f' || coalesce(array_to_string(keywords, ' '), '')));
        BEGIN
          RETURN array_remove(array_remove(array_remove(string_to_array(
            'n:' || regexp_replace(split_part(t, E'\\x1f', 1), '[^a-z0-9]+', ' n:', 'g') ||
            ' c:' || regexp_replace(split_part(t, E'\\x1f', 2), '[^a-z0-9]+', ' c:', 'g') ||
            ' k:' || regexp_replace(split_part(t, E'\\x1f', 3), '[^a-z0-9]+', ' k:', 'g'), ' '), 'n:'), 'c:'), 'k:');
        END $$`);
    await q.query(`
      ALTER TABLE catalog_items
        ADD COLUMN agent_words text[] GENERATED ALWAYS AS (catalog_agent_tokens(name, category, keywords)) STORED`);
    // GIN cannot lead with workspace_id (no btree_gin): the workspace is checked on the matched rows.
    await q.query(
      `CREATE INDEX catalog_items_agent_words_idx ON catalog_items USING gin (agent_words) WHERE status = 'ON_SALE'`,
    );
    await q.query(`
      CREATE TABLE catalog_agent_vocabulary (
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        word text NOT NULL,
        PRIMARY KEY (workspace_id, word)
      )`);
    await q.query(
      `CREATE INDEX catalog_agent_vocabulary_shape_idx ON catalog_agent_vocabulary (workspace_id, left(word, 1), length(word))`,
    );
    await q.query(`
      CREATE FUNCTION catalog_agent_vocabulary_add() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO catalog_agent_vocabulary (workspace_id, word)
          SELECT DISTINCT r.workspace_id, substr(t.token, 3)
            FROM agent_new_rows r CROSS JOIN LATERAL unnest(r.agent_words) AS t(token)
           WHERE r.status = 'ON_SALE' AND length(t.token) >= 5
           ORDER BY 1, 2
          ON CONFLICT DO NOTHING;
          RETURN NULL;
        END $$`);
    for (const event of ['INSERT', 'UPDATE'])
      await q.query(`
        CREATE TRIGGER catalog_items_agent_vocabulary_${event.toLowerCase()} AFTER ${event} ON catalog_items
          REFERENCING NEW TABLE AS agent_new_rows FOR EACH STATEMENT EXECUTE FUNCTION catalog_agent_vocabulary_add()`);
    await q.query(`
      INSERT INTO catalog_agent_vocabulary (workspace_id, word)
      SELECT DISTINCT i.workspace_id, substr(t.token, 3)
        FROM catalog_items i CROSS JOIN LATERAL unnest(i.agent_words) AS t(token)
       WHERE i.status = 'ON_SALE' AND length(t.token) >= 5
      ON CONFLICT DO NOTHING`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER catalog_items_agent_vocabulary_update ON catalog_items`);
    await q.query(`DROP TRIGGER catalog_items_agent_vocabulary_insert ON catalog_items`);
    await q.query(`DROP FUNCTION catalog_agent_vocabulary_add()`);
    await q.query(`DROP TABLE catalog_agent_vocabulary`);
    await q.query(`DROP INDEX catalog_items_agent_words_idx`);
    await q.query(`ALTER TABLE catalog_items DROP COLUMN agent_words`);
    await q.query(`DROP FUNCTION catalog_agent_tokens(text, text, text[])`);
    await q.query(
      `CREATE OR REPLACE FUNCTION catalog_agent_words(text[]) RETURNS text
         LANGUAGE sql IMMUTABLE PARALLEL SAFE
         AS $$ SELECT lower(public.immutable_unaccent(coalesce(array_to_string($1, ' '), ''))) $$`,
    );
    await q.query(`
      ALTER TABLE catalog_items
        ADD COLUMN agent_name text GENERATED ALWAYS AS (lower(immutable_unaccent(coalesce(name, '')))) STORED,
        ADD COLUMN agent_category text GENERATED ALWAYS AS (lower(immutable_unaccent(coalesce(category, '')))) STORED,
        ADD COLUMN agent_keywords text GENERATED ALWAYS AS (catalog_agent_words(keywords)) STORED,
        ADD COLUMN agent_search text GENERATED ALWAYS AS (
          lower(immutable_unaccent(coalesce(name, '') || ' ' || coalesce(category, ''))) || ' ' || catalog_agent_words(keywords)
        ) STORED`);
    await q.query(
      `CREATE INDEX catalog_items_agent_search_trgm_idx ON catalog_items USING gin (agent_search gin_trgm_ops)`,
    );
  }
}
