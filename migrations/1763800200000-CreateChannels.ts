import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Channel connections and the durable inbound event log (DESIGN §4).
 *
 * - `channel_connections.secrets` is a SecretBox-sealed JSON object (tokens, app/channel/signing
 *   secrets); it is erased when a connection is disconnected. `config` holds only non-secret ids.
 * - `routing_key` is the platform account a webhook names (page id, Instagram account id, WhatsApp
 *   phone number id, Telegram bot id, LINE bot user id): one ACTIVE connection per account across
 *   all workspaces, because the webhook is how we find the workspace. Telegram webhooks are found by
 *   the SHA-256 of their per-connection secret token, Meta handshakes by the SHA-256 of a verify token.
 * - `inbound_events` stores every acknowledged webhook event before the 200 is sent. `seq` is the
 *   arrival order (events of one sender are processed in it); `sender_key` is the platform id of the
 *   customer, used for that ordering.
 */
export class CreateChannels1763800200000 implements MigrationInterface {
  name = 'CreateChannels1763800200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE channel_connections (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('MESSENGER', 'INSTAGRAM', 'WHATSAPP', 'TELEGRAM', 'LINE', 'CUSTOM')),
        name text NOT NULL,
        status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISCONNECTED')),
        config jsonb NOT NULL DEFAULT '{}',
        secrets text,
        routing_key text,
        secret_token_hash text,
        verify_token_hash text,
        has_outbound_secret boolean NOT NULL DEFAULT false,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        disconnected_at timestamptz(3),
        CONSTRAINT channel_connections_workspace_id_key UNIQUE (workspace_id, id),
        CONSTRAINT channel_connections_config_object CHECK (jsonb_typeof(config) = 'object')
      )`);
    await q.query(
      `CREATE INDEX channel_connections_workspace_created_idx ON channel_connections (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE UNIQUE INDEX channel_connections_active_route_key ON channel_connections (type, routing_key)
       WHERE status = 'ACTIVE' AND routing_key IS NOT NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX channel_connections_secret_token_key ON channel_connections (secret_token_hash)
       WHERE status = 'ACTIVE' AND secret_token_hash IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX channel_connections_verify_token_idx ON channel_connections (verify_token_hash)
       WHERE status = 'ACTIVE' AND verify_token_hash IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE inbound_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigint GENERATED ALWAYS AS IDENTITY,
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        channel_id uuid NOT NULL,
        channel_type text NOT NULL,
        sender_key text,
        external_id text,
        payload jsonb NOT NULL,
        status text NOT NULL DEFAULT 'RECEIVED' CHECK (status IN ('RECEIVED', 'PROCESSING', 'PROCESSED', 'FAILED')),
        attempts integer NOT NULL DEFAULT 0,
        error text,
        outcome text,
        message_id uuid,
        next_attempt_at timestamptz(3),
        received_at timestamptz(3) NOT NULL DEFAULT now(),
        processing_started_at timestamptz(3),
        processed_at timestamptz(3),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT inbound_events_workspace_id_key UNIQUE (workspace_id, id),
        FOREIGN KEY (workspace_id, channel_id) REFERENCES channel_connections (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX inbound_events_channel_idx ON inbound_events (workspace_id, channel_id, received_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX inbound_events_sender_pending_idx ON inbound_events (channel_id, sender_key, seq)
       WHERE status IN ('RECEIVED', 'PROCESSING')`,
    );
    await q.query(
      `CREATE INDEX inbound_events_pending_idx ON inbound_events ((coalesce(next_attempt_at, received_at)))
       WHERE status = 'RECEIVED'`,
    );
    await q.query(
      `CREATE INDEX inbound_events_processing_idx ON inbound_events (processing_started_at) WHERE status = 'PROCESSING'`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS inbound_events`);
    await q.query(`DROP TABLE IF EXISTS channel_connections`);
  }
}
