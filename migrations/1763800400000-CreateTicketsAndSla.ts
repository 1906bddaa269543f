import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tickets (DESIGN §6) and SLA policies (DESIGN §5.3).
 *
 * - `tickets.number` comes from `ticket_counters` (one row per workspace, `next_number` bumped with
 *   INSERT … ON CONFLICT DO UPDATE … RETURNING inside the creating transaction: the row lock orders
 *   concurrent creations, so a number is never handed out twice). `key` is the settings' prefix at
 *   creation time + '-' + number and never changes afterwards.
 * - The automatic ticket is one per conversation: a partial unique index on
 *   (workspace_id, conversation_id) for source CONVERSATION makes a redelivery a no-op.
 * - References are composite (workspace_id, x_id) and SET NULL on delete: a ticket outlives its
 *   contact, conversation, queue and assignee.
 * - `ticket_settings`: one row per workspace once changed; no row means the defaults.
 * - `conversation_slas`: the policy applied to a conversation, its due times (copied onto the
 *   conversation for display) and the breach timer's bookkeeping. Each target is checked once at its
 *   due time (`*_checked_at`); a breach is stamped in `*_breached_at` and published once. The partial
 *   indexes keep only the unchecked rows, so the timer's scan stays small. `policy_id` has no foreign
 *   key: the record (with `policy_name`) outlives a deleted policy for the summary.
 */
export class CreateTicketsAndSla1763800400000 implements MigrationInterface {
  name = 'CreateTicketsAndSla1763800400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE ticket_counters (
        workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
        next_number bigint NOT NULL CHECK (next_number > 0)
      )`);

    await q.query(`
      CREATE TABLE ticket_settings (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        auto_create_from_conversation boolean NOT NULL DEFAULT true,
        key_prefix text NOT NULL DEFAULT 'TCK' CHECK (key_prefix ~ '^[A-Z][A-Z0-9]{0,9}$'),
        default_priority text NOT NULL DEFAULT 'MEDIUM' CHECK (default_priority IN ('LOW', 'MEDIUM', 'HIGH', 'URGENT')),
        resolve_with_conversation boolean NOT NULL DEFAULT false,
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT ticket_settings_workspace_key UNIQUE (workspace_id)
      )`);

    await q.query(`
      CREATE TABLE tickets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        number bigint NOT NULL,
        key text NOT NULL,
        subject text NOT NULL,
        description text,
        status text NOT NULL DEFAULT 'OPEN' CHECK (status IN ('OPEN', 'IN_PROGRESS', 'WAITING', 'RESOLVED', 'CLOSED')),
        priority text NOT NULL DEFAULT 'MEDIUM' CHECK (priority IN ('LOW', 'MEDIUM', 'HIGH', 'URGENT')),
        source text NOT NULL CHECK (source IN ('CONVERSATION', 'MANUAL', 'API')),
        assignee_id uuid,
        queue_id uuid,
        contact_id uuid,
        conversation_id uuid,
        tags text[] NOT NULL DEFAULT '{}',
        due_at timestamptz(3),
        resolved_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT tickets_workspace_id_key UNIQUE (workspace_id, id),
        CONSTRAINT tickets_workspace_number_key UNIQUE (workspace_id, number),
        CONSTRAINT tickets_assignee_fkey FOREIGN KEY (workspace_id, assignee_id)
          REFERENCES memberships (workspace_id, user_id) ON DELETE SET NULL (assignee_id),
        CONSTRAINT tickets_queue_fkey FOREIGN KEY (workspace_id, queue_id)
          REFERENCES queues (workspace_id, id) ON DELETE SET NULL (queue_id),
        CONSTRAINT tickets_contact_fkey FOREIGN KEY (workspace_id, contact_id)
          REFERENCES contacts (workspace_id, id) ON DELETE SET NULL (contact_id),
        CONSTRAINT tickets_conversation_fkey FOREIGN KEY (workspace_id, conversation_id)
          REFERENCES conversations (workspace_id, id) ON DELETE SET NULL (conversation_id)
      )`);
    await q.query(
      `CREATE UNIQUE INDEX tickets_conversation_auto_key ON tickets (workspace_id, conversation_id)
       WHERE source = 'CONVERSATION' AND conversation_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX tickets_workspace_created_idx ON tickets (workspace_id, created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX tickets_workspace_status_idx ON tickets (workspace_id, status, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX tickets_workspace_assignee_idx ON tickets (workspace_id, assignee_id, created_at DESC)
       WHERE assignee_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX tickets_workspace_contact_idx ON tickets (workspace_id, contact_id) WHERE contact_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX tickets_workspace_conversation_idx ON tickets (workspace_id, conversation_id)
       WHERE conversation_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX tickets_workspace_queue_idx ON tickets (workspace_id, queue_id) WHERE queue_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX tickets_workspace_resolved_idx ON tickets (workspace_id, resolved_at)`);
    await q.query(`CREATE INDEX tickets_tags_idx ON tickets USING gin (tags)`);

    await q.query(`
      CREATE TABLE ticket_comments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        ticket_id uuid NOT NULL,
        author_id uuid REFERENCES users (id) ON DELETE SET NULL,
        body text NOT NULL,
        internal boolean NOT NULL DEFAULT false,
        created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT ticket_comments_ticket_fkey FOREIGN KEY (workspace_id, ticket_id)
          REFERENCES tickets (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX ticket_comments_ticket_idx ON ticket_comments (workspace_id, ticket_id, created_at, id)`,
    );

    await q.query(`
      CREATE TABLE sla_policies (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        name text NOT NULL,
        active boolean NOT NULL DEFAULT true,
        position integer NOT NULL,
        priorities text[] NOT NULL DEFAULT '{}',
        channel_types text[] NOT NULL DEFAULT '{}',
        queue_ids uuid[] NOT NULL DEFAULT '{}',
        first_response_minutes integer NOT NULL CHECK (first_response_minutes > 0),
        resolution_minutes integer NOT NULL CHECK (resolution_minutes > 0),
        created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT sla_policies_workspace_id_key UNIQUE (workspace_id, id)
      )`);
    await q.query(
      `CREATE INDEX sla_policies_workspace_order_idx ON sla_policies (workspace_id, position, created_at, id)`,
    );

    await q.query(`
      CREATE TABLE conversation_slas (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        policy_id uuid NOT NULL,
        policy_name text NOT NULL,
        conversation_created_at timestamptz(3) NOT NULL,
        first_response_due_at timestamptz(3) NOT NULL,
        resolution_due_at timestamptz(3) NOT NULL,
        first_response_checked_at timestamptz(3),
        first_response_breached_at timestamptz(3),
        resolution_checked_at timestamptz(3),
        resolution_breached_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT conversation_slas_conversation_key UNIQUE (workspace_id, conversation_id),
        CONSTRAINT conversation_slas_conversation_fkey FOREIGN KEY (workspace_id, conversation_id)
          REFERENCES conversations (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX conversation_slas_workspace_created_idx ON conversation_slas (workspace_id, conversation_created_at)`,
    );
    await q.query(
      `CREATE INDEX conversation_slas_first_response_due_idx ON conversation_slas (first_response_due_at)
       WHERE first_response_checked_at IS NULL`,
    );
    await q.query(
      `CREATE INDEX conversation_slas_resolution_due_idx ON conversation_slas (resolution_due_at)
       WHERE resolution_checked_at IS NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'conversation_slas',
      'sla_policies',
      'ticket_comments',
      'tickets',
      'ticket_settings',
      'ticket_counters',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
