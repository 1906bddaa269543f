import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agent capacity and presence for routing (DESIGN §5.2).
 *
 * - `agent_status`: one row per member once they set presence or capacity; no row means OFFLINE with
 *   the default capacity of 5. `last_assigned_at` breaks LEAST_BUSY ties (idle longest first).
 * - `presence_intervals`: every presence change closes the open interval and opens a new one, so
 *   workforce analytics can sum ONLINE time; at most one open interval per member.
 * The round-robin pointer is `queues.last_assigned_user_id` (CreateIdentity), updated under the
 * queue's row lock.
 */
export class CreateRouting1763800200100 implements MigrationInterface {
  name = 'CreateRouting1763800200100';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agent_status (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL,
        user_id uuid NOT NULL,
        max_conversations integer NOT NULL DEFAULT 5 CHECK (max_conversations BETWEEN 0 AND 1000),
        presence text NOT NULL DEFAULT 'OFFLINE' CHECK (presence IN ('ONLINE', 'AWAY', 'OFFLINE')),
        presence_changed_at timestamptz(3) NOT NULL DEFAULT now(),
        last_assigned_at timestamptz(3),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT agent_status_workspace_user_key UNIQUE (workspace_id, user_id),
        FOREIGN KEY (workspace_id, user_id) REFERENCES memberships (workspace_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE presence_intervals (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL,
        user_id uuid NOT NULL,
        status text NOT NULL CHECK (status IN ('ONLINE', 'AWAY', 'OFFLINE')),
        started_at timestamptz(3) NOT NULL DEFAULT now(),
        ended_at timestamptz(3),
        FOREIGN KEY (workspace_id, user_id) REFERENCES memberships (workspace_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX presence_intervals_workspace_user_idx ON presence_intervals (workspace_id, user_id, started_at DESC)`,
    );
    await q.query(
      `CREATE INDEX presence_intervals_workspace_started_idx ON presence_intervals (workspace_id, started_at)`,
    );
    await q.query(
      `CREATE UNIQUE INDEX presence_intervals_open_key ON presence_intervals (workspace_id, user_id) WHERE ended_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS presence_intervals`);
    await q.query(`DROP TABLE IF EXISTS agent_status`);
  }
}
