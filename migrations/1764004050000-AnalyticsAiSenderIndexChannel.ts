import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Analytics `ai` with a channel filter (issue 14 speed): "conversations with AI in the window"
 * reads every AI reply of the workspace from `messages_sender_conversation_idx` and tests the
 * reply's time and, with `channelId`, its channel. The index carried only `created_at`, so a
 * channel filter turned the index-only pass into a heap visit per AI reply (11,000 heap pages for
 * 70,000 replies at the bench size). It now INCLUDEs `channel_id` too: same keys, one more
 * INCLUDE column, the human-reply probes (same index) unchanged.
 */
export class AnalyticsAiSenderIndexChannel1764004050000 implements MigrationInterface {
  name = 'AnalyticsAiSenderIndexChannel1764004050000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS messages_sender_conversation_idx`);
    await q.query(
      `CREATE INDEX messages_sender_conversation_idx ON messages (workspace_id, sender_type, conversation_id)
         INCLUDE (created_at, channel_id)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS messages_sender_conversation_idx`);
    await q.query(
      `CREATE INDEX messages_sender_conversation_idx ON messages (workspace_id, sender_type, conversation_id)
         INCLUDE (created_at)`,
    );
  }
}
