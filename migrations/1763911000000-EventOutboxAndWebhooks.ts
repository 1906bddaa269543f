import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 11: the durable event outbox and developer webhooks.
 * - `event_outbox`: every domain event, written by `EventBus.publish` in the transaction of the change
 *   it reports. `relayed_at` is set once the relay fanned it out to the workspace's webhooks; relayed
 *   rows are pruned after 30 days (with their deliveries).
 * - `webhooks`: the subscriptions; secrets sealed with SecretBox. During a rotation the previous
 *   secret stays (sealed) until `previous_secret_expires_at` so deliveries carry both signatures.
 * - `webhook_deliveries`: one row per attempt. The PENDING row of a delivery waits for
 *   `next_attempt_at`; `locked_until` marks an attempt in flight (a crashed one is picked again).
 */
export class EventOutboxAndWebhooks1763911000000 implements MigrationInterface {
  name = 'EventOutboxAndWebhooks1763911000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE event_outbox (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        type text NOT NULL,
        data jsonb NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        relayed_at timestamptz(3),
        CONSTRAINT event_outbox_workspace_key UNIQUE (workspace_id, id)
      )`);
    await q.query(
      `CREATE INDEX event_outbox_pending_idx ON event_outbox (workspace_id, created_at) WHERE relayed_at IS NULL`,
    );
    await q.query(`CREATE INDEX event_outbox_pending_all_idx ON event_outbox (created_at) WHERE relayed_at IS NULL`);
    await q.query(`CREATE INDEX event_outbox_relayed_idx ON event_outbox (relayed_at) WHERE relayed_at IS NOT NULL`);
    await q.query(`
      CREATE TABLE webhooks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        url text NOT NULL,
        events text[] NOT NULL,
        active boolean NOT NULL DEFAULT true,
        description text,
        secret text NOT NULL,
        previous_secret text,
        previous_secret_expires_at timestamptz(3),
        failure_count integer NOT NULL DEFAULT 0,
        disabled_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT webhooks_workspace_key UNIQUE (workspace_id, id)
      )`);
    await q.query(`CREATE INDEX webhooks_workspace_idx ON webhooks (workspace_id, created_at, id)`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        webhook_id uuid NOT NULL,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        attempt integer NOT NULL DEFAULT 1,
        status text NOT NULL DEFAULT 'PENDING' CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED')),
        status_code integer,
        duration_ms integer,
        error text,
        response_excerpt text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        next_attempt_at timestamptz(3),
        locked_until timestamptz(3),
        FOREIGN KEY (workspace_id, webhook_id) REFERENCES webhooks (workspace_id, id) ON DELETE CASCADE,
        FOREIGN KEY (workspace_id, event_id) REFERENCES event_outbox (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (workspace_id, webhook_id, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (workspace_id, event_id)`);
    await q.query(
      `CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhook_deliveries`);
    await q.query(`DROP TABLE webhooks`);
    await q.query(`DROP TABLE event_outbox`);
  }
}
