import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Automations and flows (DESIGN §8, issue 12):
 *
 * - `automations`: RULE and FLOW definitions (trigger, conditions and actions as JSON, validated by the
 *   automations module's definition registry), evaluation `order`, `run_count` / `last_run_at`;
 * - `automation_runs`: one row per evaluated automation and event (the run log);
 * - `automation_cache_versions`: one counter per workspace, bumped in the transaction of every change
 *   to its automations. Each worker caches the active automations per workspace and re-reads them
 *   only when this number moved (one primary-key read per event, valid across processes).
 */
export class CreateAutomations1763912000000 implements MigrationInterface {
  name = 'CreateAutomations1763912000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE automations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        name text NOT NULL,
        active boolean NOT NULL DEFAULT true,
        kind text NOT NULL CHECK (kind IN ('RULE', 'FLOW')),
        trigger jsonb NOT NULL,
        conditions jsonb NOT NULL DEFAULT '{"all": [], "any": []}',
        actions jsonb NOT NULL DEFAULT '[]',
        "order" integer NOT NULL DEFAULT 0,
        run_count integer NOT NULL DEFAULT 0,
        last_run_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT automations_workspace_id_key UNIQUE (workspace_id, id)
      )`);
    await q.query(`CREATE INDEX automations_list_idx ON automations (workspace_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE automation_runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        automation_id uuid NOT NULL,
        trigger text NOT NULL,
        conversation_id uuid,
        matched boolean NOT NULL,
        status text NOT NULL CHECK (status IN ('SUCCESS', 'FAILED', 'SKIPPED')),
        actions jsonb NOT NULL DEFAULT '[]',
        duration_ms integer NOT NULL DEFAULT 0,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        FOREIGN KEY (workspace_id, automation_id) REFERENCES automations (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX automation_runs_list_idx ON automation_runs (workspace_id, created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX automation_runs_automation_idx ON automation_runs (workspace_id, automation_id, created_at DESC, id DESC)`,
    );
    await q.query(`
      CREATE TABLE automation_cache_versions (
        workspace_id uuid PRIMARY KEY REFERENCES workspaces(id) ON DELETE CASCADE,
        version bigint NOT NULL DEFAULT 0
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE automation_cache_versions`);
    await q.query(`DROP TABLE automation_runs`);
    await q.query(`DROP TABLE automations`);
  }
}
