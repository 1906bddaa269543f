import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Analytics summary (issue 14 speed): the SLA compliance of `GET /analytics/summary` now reads the
 * due times the SLA module writes onto the conversation (`conversations.first_response_due_at`,
 * `resolution_due_at`, set in the same transaction as the `conversation_slas` record, never changed
 * afterwards) instead of joining every `conversation_slas` row of the window to its conversation.
 * This re-copies the due times of every recorded SLA onto its conversation, so rows written before
 * the copy was kept (or by hand) give the same figures. Set-based, one statement; a no-op where the
 * copies already agree.
 */
export class ConversationSlaDueCopy1764003200000 implements MigrationInterface {
  name = 'ConversationSlaDueCopy1764003200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      UPDATE conversations c
         SET first_response_due_at = s.first_response_due_at, resolution_due_at = s.resolution_due_at
        FROM conversation_slas s
       WHERE s.workspace_id = c.workspace_id AND s.conversation_id = c.id
         AND (c.first_response_due_at IS DISTINCT FROM s.first_response_due_at
              OR c.resolution_due_at IS DISTINCT FROM s.resolution_due_at)`);
  }

  async down(): Promise<void> {
    // Nothing to undo: the copies are what the SLA module writes anyway.
  }
}
