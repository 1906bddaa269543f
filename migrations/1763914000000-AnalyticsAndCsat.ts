import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * CSAT answers (one per conversation, a later answer replaces it), analytics dashboards, and the
 * indexes every analytics query and report needs: each leads with `workspace_id` and the time
 * column the query ranges over (INCLUDE columns let the counts run as index-only scans).
 */
export class AnalyticsAndCsat1763914000000 implements MigrationInterface {
  name = 'AnalyticsAndCsat1763914000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE csat_responses (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        score smallint NOT NULL CHECK (score BETWEEN 1 AND 5),
        comment text,
        created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT csat_responses_conversation_key UNIQUE (workspace_id, conversation_id),
        FOREIGN KEY (workspace_id, conversation_id) REFERENCES conversations (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX csat_responses_workspace_created_idx ON csat_responses (workspace_id, created_at DESC, id DESC)`,
    );

    await q.query(`
      CREATE TABLE analytics_dashboards (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        owner_id uuid,
        name text NOT NULL,
        shared boolean NOT NULL DEFAULT false,
        widgets jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT analytics_dashboards_widgets_array CHECK (jsonb_typeof(widgets) = 'array'),
        FOREIGN KEY (workspace_id, owner_id) REFERENCES memberships (workspace_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX analytics_dashboards_workspace_created_idx ON analytics_dashboards (workspace_id, created_at DESC, id DESC)`,
    );

    // Messages by time: inbound/outbound/AI counts per bucket without touching the heap.
    await q.query(
      `CREATE INDEX messages_analytics_idx ON messages (workspace_id, created_at)
         INCLUDE (direction, sender_type, conversation_id, channel_id)`,
    );
    // Conversations by creation time with what the figures read (channel/queue filters, first response).
    await q.query(
      `CREATE INDEX conversations_analytics_created_idx ON conversations (workspace_id, created_at)
         INCLUDE (channel_id, channel_type, queue_id, assignee_id, first_response_at, resolved_at, status)`,
    );
    await q.query(
      `CREATE INDEX conversations_analytics_resolved_idx ON conversations (workspace_id, resolved_at)
         INCLUDE (channel_id, queue_id, assignee_id, created_at) WHERE resolved_at IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX conversations_analytics_assigned_idx ON conversations (workspace_id, assigned_at)
         WHERE assigned_at IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX tickets_analytics_resolved_idx ON tickets (workspace_id, resolved_at) WHERE resolved_at IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX presence_intervals_analytics_idx ON presence_intervals (workspace_id, started_at, ended_at)
         INCLUDE (user_id, status)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS presence_intervals_analytics_idx`);
    await q.query(`DROP INDEX IF EXISTS tickets_analytics_resolved_idx`);
    await q.query(`DROP INDEX IF EXISTS conversations_analytics_assigned_idx`);
    await q.query(`DROP INDEX IF EXISTS conversations_analytics_resolved_idx`);
    await q.query(`DROP INDEX IF EXISTS conversations_analytics_created_idx`);
    await q.query(`DROP INDEX IF EXISTS messages_analytics_idx`);
    await q.query(`DROP TABLE IF EXISTS analytics_dashboards`);
    await q.query(`DROP TABLE IF EXISTS csat_responses`);
  }
}
