import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The conversation inbox (DESIGN §5.1): internal notes, saved views, and the indexes of
 * `GET /conversations`.
 *
 * - `last_message_at` is the list's sort key (newest activity first, keyset `(last_message_at, id)`):
 *   it is never null (a conversation started from our side without a message has its creation time),
 *   so keyset comparisons never meet a NULL.
 * - Notes are never sent to the customer. The author is a member (SET NULL when they leave; null for
 *   an API token).
 * - Views: `filters` is the saved subset of the list's filters; personal views (`shared = false`)
 *   belong to `created_by` and go with them when they leave the workspace.
 * - List indexes lead with workspace_id and end with the sort key, so a filtered page is an index
 *   range read in order: status, assignee and queue (the inbox's tabs and an agent's "mine").
 */
export class ConversationInbox1763800500000 implements MigrationInterface {
  name = 'ConversationInbox1763800500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`UPDATE conversations SET last_message_at = created_at WHERE last_message_at IS NULL`);
    await q.query(`ALTER TABLE conversations ALTER COLUMN last_message_at SET DEFAULT now()`);
    await q.query(`ALTER TABLE conversations ALTER COLUMN last_message_at SET NOT NULL`);

    await q.query(
      `CREATE INDEX conversations_status_activity_idx ON conversations (workspace_id, status, last_message_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX conversations_assignee_activity_idx ON conversations (workspace_id, assignee_id, last_message_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX conversations_queue_activity_idx ON conversations (workspace_id, queue_id, last_message_at DESC, id DESC)`,
    );

    await q.query(`
      CREATE TABLE conversation_notes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        conversation_id uuid NOT NULL,
        author_id uuid,
        text text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT conversation_notes_workspace_id_key UNIQUE (workspace_id, id),
        CONSTRAINT conversation_notes_conversation_fkey FOREIGN KEY (workspace_id, conversation_id)
          REFERENCES conversations (workspace_id, id) ON DELETE CASCADE,
        CONSTRAINT conversation_notes_author_fkey FOREIGN KEY (workspace_id, author_id)
          REFERENCES memberships (workspace_id, user_id) ON DELETE SET NULL (author_id)
      )`);
    await q.query(
      `CREATE INDEX conversation_notes_conversation_idx ON conversation_notes (workspace_id, conversation_id, created_at, id)`,
    );

    await q.query(`
      CREATE TABLE conversation_views (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        name text NOT NULL,
        filters jsonb NOT NULL DEFAULT '{}',
        shared boolean NOT NULL DEFAULT false,
        created_by uuid,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT conversation_views_workspace_id_key UNIQUE (workspace_id, id),
        CONSTRAINT conversation_views_filters_object CHECK (jsonb_typeof(filters) = 'object'),
        CONSTRAINT conversation_views_creator_fkey FOREIGN KEY (workspace_id, created_by)
          REFERENCES memberships (workspace_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX conversation_views_workspace_created_idx ON conversation_views (workspace_id, created_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS conversation_views`);
    await q.query(`DROP TABLE IF EXISTS conversation_notes`);
    await q.query(`DROP INDEX IF EXISTS conversations_queue_activity_idx`);
    await q.query(`DROP INDEX IF EXISTS conversations_assignee_activity_idx`);
    await q.query(`DROP INDEX IF EXISTS conversations_status_activity_idx`);
    await q.query(`ALTER TABLE conversations ALTER COLUMN last_message_at DROP NOT NULL`);
    await q.query(`ALTER TABLE conversations ALTER COLUMN last_message_at DROP DEFAULT`);
  }
}
