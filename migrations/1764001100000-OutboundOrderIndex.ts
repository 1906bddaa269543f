import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-conversation order of outbound deliveries (DESIGN §4.4): a message is claimed for delivery
 * only when no earlier OUTBOUND message of its conversation is still PENDING. This partial index
 * answers that check (and "the next pending message after this one") from the few pending rows of
 * the conversation, not from its whole history.
 */
export class OutboundOrderIndex1764001100000 implements MigrationInterface {
  name = 'OutboundOrderIndex1764001100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX messages_conversation_outbound_pending_idx ON messages (workspace_id, conversation_id, seq)
         WHERE direction = 'OUTBOUND' AND delivery_status = 'PENDING'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX messages_conversation_outbound_pending_idx`);
  }
}
