import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Analytics `ai` (issue 14 speed): "resolved with AI" reads the conversations resolved in the
 * window from `conversations_analytics_resolved_idx` and looks each one up in the set of AI
 * conversations by its id. The index now carries `id` as well, so that read stays index-only (no
 * visit of the conversation heap per row). Same name, same keys and predicate, one more INCLUDE
 * column: every other reader of the index (inbox resolved counts, workforce, reports) is unchanged.
 */
export class AnalyticsResolvedConversationIds1764004000000 implements MigrationInterface {
  name = 'AnalyticsResolvedConversationIds1764004000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS conversations_analytics_resolved_idx`);
    await q.query(
      `CREATE INDEX conversations_analytics_resolved_idx ON conversations (workspace_id, resolved_at)
         INCLUDE (id, channel_id, queue_id, assignee_id, created_at) WHERE resolved_at IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS conversations_analytics_resolved_idx`);
    await q.query(
      `CREATE INDEX conversations_analytics_resolved_idx ON conversations (workspace_id, resolved_at)
         INCLUDE (channel_id, queue_id, assignee_id, created_at) WHERE resolved_at IS NOT NULL`,
    );
  }
}
