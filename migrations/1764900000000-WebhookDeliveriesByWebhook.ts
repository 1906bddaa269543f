import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A webhook's due attempts, in order (session 32, issue 11's ≥ 90 % figure): the delivery job drains
 * one webhook at a time — it claims that webhook's oldest due PENDING attempts in one statement and
 * counts the ones in flight — so the PENDING rows are indexed by workspace, webhook and due time.
 * It replaces `webhook_deliveries_due_idx` (due time across workspaces): the recovery sweep, every
 * 5 s, reads the same PENDING rows through the new index and sorts the few due ones (a top-N sort of
 * the PENDING set, which a working receiver keeps small).
 * The attempts in flight (claimed, `locked_until` set) get a partial index of their own: the claim
 * counts them, and through the due index that count read every PENDING row of the webhook — the
 * whole backlog, once per batch, while a burst's deliveries queue.
 */
export class WebhookDeliveriesByWebhook1764900000000 implements MigrationInterface {
  name = 'WebhookDeliveriesByWebhook1764900000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_due_idx`);
    await q.query(
      `CREATE INDEX webhook_deliveries_webhook_due_idx ON webhook_deliveries (workspace_id, webhook_id, next_attempt_at)
        WHERE status = 'PENDING'`,
    );
    await q.query(
      `CREATE INDEX webhook_deliveries_in_flight_idx ON webhook_deliveries (workspace_id, webhook_id)
        WHERE status = 'PENDING' AND locked_until IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhook_deliveries_in_flight_idx`);
    await q.query(`DROP INDEX webhook_deliveries_webhook_due_idx`);
    await q.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING'`,
    );
  }
}
