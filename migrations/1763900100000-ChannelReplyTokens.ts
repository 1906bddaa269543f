import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 10: LINE's reply token moves off `conversations` to the channel layer's own table. A reply
 * token belongs to the customer's last inbound event on a channel, so it is kept per
 * (connection, customer id on the channel); the adapter that uses reply tokens claims it (one use)
 * when a reply goes out. Fresh tokens are carried over; `conversations` loses the two columns.
 */
export class ChannelReplyTokens1763900100000 implements MigrationInterface {
  name = 'ChannelReplyTokens1763900100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE channel_reply_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        channel_id uuid NOT NULL,
        recipient_id text NOT NULL,
        token text NOT NULL,
        expires_at timestamptz(3) NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT channel_reply_tokens_recipient_key UNIQUE (workspace_id, channel_id, recipient_id),
        FOREIGN KEY (workspace_id, channel_id) REFERENCES channel_connections (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(`
      INSERT INTO channel_reply_tokens (workspace_id, channel_id, recipient_id, token, expires_at)
      SELECT DISTINCT ON (workspace_id, channel_id, contact_external_id)
             workspace_id, channel_id, contact_external_id, reply_token, reply_token_expires_at
        FROM conversations
       WHERE reply_token IS NOT NULL AND reply_token_expires_at > now()
       ORDER BY workspace_id, channel_id, contact_external_id, reply_token_expires_at DESC`);
    await q.query(`ALTER TABLE conversations DROP COLUMN reply_token, DROP COLUMN reply_token_expires_at`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE conversations ADD COLUMN reply_token text, ADD COLUMN reply_token_expires_at timestamptz(3)`,
    );
    await q.query(`
      UPDATE conversations c SET reply_token = t.token, reply_token_expires_at = t.expires_at
        FROM channel_reply_tokens t
       WHERE t.workspace_id = c.workspace_id AND t.channel_id = c.channel_id AND t.recipient_id = c.contact_external_id
         AND c.status <> 'RESOLVED'`);
    await q.query(`DROP TABLE IF EXISTS channel_reply_tokens`);
  }
}
