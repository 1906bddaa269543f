import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * AI agents (issue 13, DESIGN §9):
 *
 * - `ai_agents`: the workspace's agents (BUILTIN or OPENAI_COMPATIBLE), which channels they answer.
 * - Search columns on `catalog_items` for the built-in matcher: the name, SKU, category and keywords
 *   lower-cased and without accents (`immutable_unaccent`, migration 1763900000000), kept by
 *   PostgreSQL itself as generated columns, with GIN trigram indexes (`pg_trgm`) so a word of the
 *   customer's question (even misspelt) finds its candidates without a scan. `agent_sku` keeps only
 *   letters and digits ("em-pro-1" and "EM PRO 1" are the same SKU).
 */
export class AiAgentsAndCatalogSearch1763913000000 implements MigrationInterface {
  name = 'AiAgentsAndCatalogSearch1763913000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ai_agents (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name text NOT NULL,
        active boolean NOT NULL DEFAULT true,
        instructions text NOT NULL DEFAULT '',
        channel_ids uuid[] NOT NULL DEFAULT '{}',
        use_catalog boolean NOT NULL DEFAULT true,
        handoff_keywords text[] NOT NULL DEFAULT '{}',
        handoff_message text,
        provider text NOT NULL CHECK (provider IN ('BUILTIN', 'OPENAI_COMPATIBLE')),
        model text,
        temperature double precision NOT NULL DEFAULT 0.3 CHECK (temperature >= 0 AND temperature <= 2),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT ai_agents_workspace_id_key UNIQUE (workspace_id, id)
      )`);
    await q.query(`CREATE INDEX ai_agents_workspace_created_idx ON ai_agents (workspace_id, created_at DESC, id DESC)`);

    // array_to_string is only STABLE (it goes through the element type's output function): for text[]
    // it is immutable in fact, so this wrapper may be used in a generated column.
    await q.query(
      `CREATE OR REPLACE FUNCTION catalog_agent_words(text[]) RETURNS text
         LANGUAGE sql IMMUTABLE PARALLEL SAFE
         AS $$ SELECT lower(public.immutable_unaccent(coalesce(array_to_string($1, ' '), ''))) $$`,
    );
    await q.query(`
      ALTER TABLE catalog_items
        ADD COLUMN agent_name text GENERATED ALWAYS AS (lower(immutable_unaccent(coalesce(name, '')))) STORED,
        ADD COLUMN agent_sku text GENERATED ALWAYS AS (regexp_replace(lower(coalesce(sku, '')), '[^a-z0-9]', '', 'g')) STORED,
        ADD COLUMN agent_category text GENERATED ALWAYS AS (lower(immutable_unaccent(coalesce(category, '')))) STORED,
        ADD COLUMN agent_keywords text GENERATED ALWAYS AS (catalog_agent_words(keywords)) STORED`);
    await q.query(`
      ALTER TABLE catalog_items
        ADD COLUMN agent_search text GENERATED ALWAYS AS (
          lower(immutable_unaccent(coalesce(name, '') || ' ' || coalesce(category, ''))) || ' ' || catalog_agent_words(keywords)
        ) STORED`);
    // Not a partial index: with the question's word as a parameter of a LATERAL join, the planner
    // never chose a partial trigram index (it scanned the workspace instead, 20x slower at 10,000 items).
    await q.query(
      `CREATE INDEX catalog_items_agent_search_trgm_idx ON catalog_items USING gin (agent_search gin_trgm_ops)`,
    );
    await q.query(
      `CREATE INDEX catalog_items_agent_sku_idx ON catalog_items (workspace_id, agent_sku) WHERE status = 'ON_SALE' AND agent_sku <> ''`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX catalog_items_agent_sku_idx`);
    await q.query(`DROP INDEX catalog_items_agent_search_trgm_idx`);
    await q.query(`
      ALTER TABLE catalog_items DROP COLUMN agent_search, DROP COLUMN agent_keywords, DROP COLUMN agent_category,
        DROP COLUMN agent_sku, DROP COLUMN agent_name`);
    await q.query(`DROP FUNCTION catalog_agent_words(text[])`);
    await q.query(`DROP TABLE ai_agents`);
  }
}
