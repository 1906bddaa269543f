import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversations and messages (DESIGN §5.1).
 *
 * - A conversation belongs to one contact on one channel connection; `contact_external_id` is the
 *   customer's id on that channel (the recipient of replies). Deleting a contact deletes their
 *   conversations; a channel connection is never deleted (DELETE /channels/:id disconnects it).
 * - `reply_token`: the LINE reply token of the latest inbound message while it is fresh; an outbound
 *   delivery claims it atomically (one use), else pushes.
 * - Messages are unique per (channel_id, external_id): a platform's redelivery creates nothing.
 *   `seq` is the insertion order, which is the order of a conversation's messages.
 * - Outbound delivery state lives on the message: PENDING with `next_attempt_at` until SENT or FAILED.
 */
export class CreateInbox1763800200200 implements MigrationInterface {
  name = 'CreateInbox1763800200200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE conversations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        contact_id uuid NOT NULL,
        channel_id uuid NOT NULL,
        channel_type text NOT NULL,
        contact_external_id text NOT NULL,
        status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'ON_HOLD', 'RESOLVED')),
        priority text NOT NULL DEFAULT 'MEDIUM' CHECK (priority IN ('LOW', 'MEDIUM', 'HIGH', 'URGENT')),
        queue_id uuid,
        assignee_id uuid,
        assigned_at timestamptz(3),
        tags text[] NOT NULL DEFAULT '{}',
        subject text,
        last_message_at timestamptz(3),
        last_message_preview text,
        last_inbound_at timestamptz(3),
        first_response_at timestamptz(3),
        first_response_due_at timestamptz(3),
        resolution_due_at timestamptz(3),
        resolved_at timestamptz(3),
        on_hold_reason text,
        wrap_up jsonb,
        suggested_reply jsonb,
        reply_token text,
        reply_token_expires_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT conversations_workspace_id_key UNIQUE (workspace_id, id),
        FOREIGN KEY (workspace_id, contact_id) REFERENCES contacts (workspace_id, id) ON DELETE CASCADE,
        FOREIGN KEY (workspace_id, channel_id) REFERENCES channel_connections (workspace_id, id),
        FOREIGN KEY (workspace_id, queue_id) REFERENCES queues (workspace_id, id),
        FOREIGN KEY (workspace_id, assignee_id) REFERENCES memberships (workspace_id, user_id) ON DELETE SET NULL (assignee_id)
      )`);
    await q.query(
      `CREATE INDEX conversations_open_by_contact_idx ON conversations (workspace_id, channel_id, contact_id, created_at DESC)
       WHERE status <> 'RESOLVED'`,
    );
    await q.query(
      `CREATE INDEX conversations_workload_idx ON conversations (workspace_id, assignee_id)
       WHERE status IN ('OPEN', 'ON_HOLD') AND assignee_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX conversations_waiting_idx ON conversations (workspace_id, queue_id, created_at, id)
       WHERE status = 'OPEN' AND assignee_id IS NULL`,
    );
    await q.query(
      `CREATE INDEX conversations_workspace_last_message_idx ON conversations (workspace_id, last_message_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX conversations_workspace_created_idx ON conversations (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX conversations_contact_idx ON conversations (workspace_id, contact_id)`);

    await q.query(`
      CREATE TABLE messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        seq bigint GENERATED ALWAYS AS IDENTITY,
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        channel_id uuid NOT NULL,
        direction text NOT NULL CHECK (direction IN ('INBOUND', 'OUTBOUND')),
        sender_type text NOT NULL CHECK (sender_type IN ('CONTACT', 'AGENT', 'AI', 'AUTOMATION', 'SYSTEM')),
        sender_id uuid,
        type text NOT NULL CHECK (type IN ('TEXT', 'IMAGE', 'FILE', 'BUTTONS', 'POSTBACK')),
        text text,
        attachments jsonb NOT NULL DEFAULT '[]',
        buttons jsonb,
        postback_payload text,
        external_id text,
        delivery_status text NOT NULL CHECK (delivery_status IN ('RECEIVED', 'PENDING', 'SENT', 'FAILED')),
        delivery_error text,
        delivery_attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        sent_at timestamptz(3),
        metadata jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT messages_workspace_id_key UNIQUE (workspace_id, id),
        CONSTRAINT messages_attachments_array CHECK (jsonb_typeof(attachments) = 'array'),
        FOREIGN KEY (workspace_id, conversation_id) REFERENCES conversations (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE UNIQUE INDEX messages_channel_external_key ON messages (channel_id, external_id) WHERE external_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX messages_conversation_seq_idx ON messages (workspace_id, conversation_id, seq DESC)`);
    await q.query(
      `CREATE INDEX messages_outbound_pending_idx ON messages (next_attempt_at) WHERE delivery_status = 'PENDING'`,
    );
    await q.query(`CREATE INDEX messages_workspace_created_idx ON messages (workspace_id, created_at DESC, id DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS messages`);
    await q.query(`DROP TABLE IF EXISTS conversations`);
  }
}
