import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The PENDING outbound index keyed on a column a delivery claim does not change (session 31, issue
 * 16 item 3).
 *
 * A delivery claim moves `next_attempt_at` (the lease), `delivery_attempts` and `updated_at`. With
 * `next_attempt_at` as the key of `messages_outbound_pending_idx`, every claim was a non-HOT update:
 * a new row version with new entries in all ten indexes of `messages`, the message text's trigrams
 * included — one of the three versions every AI reply wrote (insert, claim, SENT). Keyed on
 * `created_at`, which never changes, a claim changes no indexed column and can be a HOT update.
 * The index's readers are unchanged: the recovery sweep (`takeDueRows`) orders the PENDING rows by
 * `coalesce(next_attempt_at, created_at)`, an expression neither key serves, so it used the index
 * as the set of PENDING rows and sorted them, as it does now.
 */
export class OutboundPendingByCreation1764800000000 implements MigrationInterface {
  name = 'OutboundPendingByCreation1764800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX messages_outbound_pending_idx`);
    await q.query(
      `CREATE INDEX messages_outbound_pending_idx ON messages (created_at) WHERE delivery_status = 'PENDING'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX messages_outbound_pending_idx`);
    await q.query(
      `CREATE INDEX messages_outbound_pending_idx ON messages (next_attempt_at) WHERE delivery_status = 'PENDING'`,
    );
  }
}
