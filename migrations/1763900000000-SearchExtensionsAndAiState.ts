import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Shared ground for search and the AI agent (issues 13, 16):
 *
 * - `pg_trgm`, `unaccent` and `fuzzystrmatch` on both engines (the embedded engine loads PGlite's
 *   contrib builds; PostgreSQL ships them in contrib). `immutable_unaccent(text)` wraps `unaccent()`
 *   (which is only STABLE) so expressions over it can be indexed.
 * - `ai_conversation_states`: what the AI agent remembers per conversation (which agent answers it,
 *   and whether it handed the conversation off). Analytics counts handoffs from `handed_off_at`;
 *   AI replies are OUTBOUND messages with `sender_type = 'AI'`.
 */
export class SearchExtensionsAndAiState1763900000000 implements MigrationInterface {
  name = 'SearchExtensionsAndAiState1763900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(`CREATE EXTENSION IF NOT EXISTS unaccent`);
    await q.query(`CREATE EXTENSION IF NOT EXISTS fuzzystrmatch`);
    await q.query(
      `CREATE OR REPLACE FUNCTION immutable_unaccent(text) RETURNS text
         LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
         AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, $1) $$`,
    );
    await q.query(`
      CREATE TABLE ai_conversation_states (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        agent_id uuid,
        status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'HANDED_OFF', 'HUMAN')),
        handed_off_at timestamptz(3),
        handoff_reason text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT ai_conversation_states_conversation_key UNIQUE (workspace_id, conversation_id),
        FOREIGN KEY (workspace_id, conversation_id) REFERENCES conversations (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX ai_conversation_states_handoff_idx ON ai_conversation_states (workspace_id, handed_off_at) WHERE handed_off_at IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE ai_conversation_states`);
    await q.query(`DROP FUNCTION immutable_unaccent(text)`);
    // The extensions stay: other objects may depend on them, and they cost nothing.
  }
}
