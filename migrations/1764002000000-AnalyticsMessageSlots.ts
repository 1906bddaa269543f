import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 14 speed: a rollup of message counts per 15-minute slot, so a 30-day analytics window
 * reads ≤ 2,880 rows per (channel, queue) instead of every message.
 *
 * `analytics_message_slots (workspace_id, slot, channel_id, queue_id)` → inbound, outbound and AI
 * reply counts of the messages created in `[slot, slot + 15 min)`; `queue_id` is the message's
 * conversation's current queue. Slots are absolute instants (`date_bin` from 2000-01-01 UTC), and
 * every time zone in use today has an offset that is a multiple of 15 minutes, so any local HOUR,
 * DAY or WEEK bucket is an exact sum of whole slots (DST days included). The partial slots at the
 * window's edges are counted from `messages` directly (see AnalyticsRepository).
 *
 * Kept exact, set-based, in the transaction of the change, by triggers (every write path, SQL
 * seeds and imports included):
 * - messages INSERT / DELETE: one statement-level trigger each, aggregating the transition table
 *   (one upsert per statement, whatever the row count);
 * - messages UPDATE of the counted columns (never done by the app today): moves the row's count;
 * - conversations UPDATE of `queue_id`: moves that conversation's counts to the new queue;
 * - conversations DELETE (contact deletion cascades): subtracts its messages before the cascade
 *   removes them (the messages' DELETE trigger skips rows whose conversation is gone); skipped
 *   when the whole workspace is being deleted (its slots go with it).
 * The migration backfills the rollup from the stored messages in one statement.
 */
export class AnalyticsMessageSlots1764002000000 implements MigrationInterface {
  name = 'AnalyticsMessageSlots1764002000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE analytics_message_slots (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        slot timestamptz NOT NULL,
        channel_id uuid NOT NULL,
        queue_id uuid,
        inbound integer NOT NULL DEFAULT 0,
        outbound integer NOT NULL DEFAULT 0,
        ai_replies integer NOT NULL DEFAULT 0,
        CONSTRAINT analytics_message_slots_key UNIQUE NULLS NOT DISTINCT (workspace_id, slot, channel_id, queue_id)
      )`);
    await q.query(`
      CREATE FUNCTION analytics_slot(ts timestamptz) RETURNS timestamptz
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$ SELECT date_bin('15 minutes', ts, timestamptz '2000-01-01 00:00:00+00') $$`);
    // Adds (sign +1) or removes (-1) one conversation's message counts under the given queue.
    await q.query(`
      CREATE FUNCTION analytics_slots_add_conversation(ws uuid, conv uuid, queue uuid, factor integer) RETURNS void
        LANGUAGE sql AS $$
        INSERT INTO analytics_message_slots AS a (workspace_id, slot, channel_id, queue_id, inbound, outbound, ai_replies)
        SELECT ws, analytics_slot(m.created_at), m.channel_id, queue,
               factor * count(*) FILTER (WHERE m.direction = 'INBOUND'),
               factor * count(*) FILTER (WHERE m.direction = 'OUTBOUND'),
               factor * count(*) FILTER (WHERE m.sender_type = 'AI')
          FROM messages m
         WHERE m.workspace_id = ws AND m.conversation_id = conv
         GROUP BY 2, 3
         ORDER BY 2, 3
        ON CONFLICT (workspace_id, slot, channel_id, queue_id) DO UPDATE
           SET inbound = a.inbound + EXCLUDED.inbound, outbound = a.outbound + EXCLUDED.outbound,
               ai_replies = a.ai_replies + EXCLUDED.ai_replies
      $$`);
    await q.query(`
      CREATE FUNCTION analytics_slots_messages_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO analytics_message_slots AS a (workspace_id, slot, channel_id, queue_id, inbound, outbound, ai_replies)
        SELECT n.workspace_id, analytics_slot(n.created_at), n.channel_id, c.queue_id,
               count(*) FILTER (WHERE n.direction = 'INBOUND'), count(*) FILTER (WHERE n.direction = 'OUTBOUND'),
               count(*) FILTER (WHERE n.sender_type = 'AI')
          FROM analytics_new_messages n
          JOIN conversations c ON c.workspace_id = n.workspace_id AND c.id = n.conversation_id
         GROUP BY 1, 2, 3, 4
         ORDER BY 1, 2, 3, 4
        ON CONFLICT (workspace_id, slot, channel_id, queue_id) DO UPDATE
           SET inbound = a.inbound + EXCLUDED.inbound, outbound = a.outbound + EXCLUDED.outbound,
               ai_replies = a.ai_replies + EXCLUDED.ai_replies;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION analytics_slots_messages_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE analytics_message_slots a
           SET inbound = a.inbound - d.inbound, outbound = a.outbound - d.outbound, ai_replies = a.ai_replies - d.ai
          FROM (SELECT o.workspace_id, analytics_slot(o.created_at) AS slot, o.channel_id, c.queue_id,
                       count(*) FILTER (WHERE o.direction = 'INBOUND') AS inbound,
                       count(*) FILTER (WHERE o.direction = 'OUTBOUND') AS outbound,
                       count(*) FILTER (WHERE o.sender_type = 'AI') AS ai
                  FROM analytics_old_messages o
                  JOIN conversations c ON c.workspace_id = o.workspace_id AND c.id = o.conversation_id
                 GROUP BY 1, 2, 3, 4) d
         WHERE a.workspace_id = d.workspace_id AND a.slot = d.slot AND a.channel_id = d.channel_id
           AND a.queue_id IS NOT DISTINCT FROM d.queue_id;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION analytics_slots_message_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        old_queue uuid := (SELECT queue_id FROM conversations WHERE workspace_id = OLD.workspace_id AND id = OLD.conversation_id);
        new_queue uuid := (SELECT queue_id FROM conversations WHERE workspace_id = NEW.workspace_id AND id = NEW.conversation_id);
      BEGIN
        UPDATE analytics_message_slots a
           SET inbound = a.inbound - (OLD.direction = 'INBOUND')::int, outbound = a.outbound - (OLD.direction = 'OUTBOUND')::int,
               ai_replies = a.ai_replies - (OLD.sender_type = 'AI')::int
         WHERE a.workspace_id = OLD.workspace_id AND a.slot = analytics_slot(OLD.created_at)
           AND a.channel_id = OLD.channel_id AND a.queue_id IS NOT DISTINCT FROM old_queue;
        INSERT INTO analytics_message_slots AS a (workspace_id, slot, channel_id, queue_id, inbound, outbound, ai_replies)
        VALUES (NEW.workspace_id, analytics_slot(NEW.created_at), NEW.channel_id, new_queue,
                (NEW.direction = 'INBOUND')::int, (NEW.direction = 'OUTBOUND')::int, (NEW.sender_type = 'AI')::int)
        ON CONFLICT (workspace_id, slot, channel_id, queue_id) DO UPDATE
           SET inbound = a.inbound + EXCLUDED.inbound, outbound = a.outbound + EXCLUDED.outbound,
               ai_replies = a.ai_replies + EXCLUDED.ai_replies;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION analytics_slots_conversation_queue_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM analytics_slots_add_conversation(OLD.workspace_id, OLD.id, OLD.queue_id, -1);
        PERFORM analytics_slots_add_conversation(NEW.workspace_id, NEW.id, NEW.queue_id, 1);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE FUNCTION analytics_slots_conversation_deleting() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM workspaces w WHERE w.id = OLD.workspace_id) THEN
          PERFORM analytics_slots_add_conversation(OLD.workspace_id, OLD.id, OLD.queue_id, -1);
        END IF;
        RETURN OLD;
      END $$`);
    await q.query(`
      CREATE TRIGGER analytics_slots_messages_insert AFTER INSERT ON messages
        REFERENCING NEW TABLE AS analytics_new_messages
        FOR EACH STATEMENT EXECUTE FUNCTION analytics_slots_messages_inserted()`);
    await q.query(`
      CREATE TRIGGER analytics_slots_messages_delete AFTER DELETE ON messages
        REFERENCING OLD TABLE AS analytics_old_messages
        FOR EACH STATEMENT EXECUTE FUNCTION analytics_slots_messages_deleted()`);
    await q.query(`
      CREATE TRIGGER analytics_slots_messages_update
        AFTER UPDATE OF created_at, direction, sender_type, channel_id, conversation_id ON messages
        FOR EACH ROW WHEN (OLD.created_at IS DISTINCT FROM NEW.created_at OR OLD.direction IS DISTINCT FROM NEW.direction
                           OR OLD.sender_type IS DISTINCT FROM NEW.sender_type OR OLD.channel_id IS DISTINCT FROM NEW.channel_id
                           OR OLD.conversation_id IS DISTINCT FROM NEW.conversation_id)
        EXECUTE FUNCTION analytics_slots_message_updated()`);
    await q.query(`
      CREATE TRIGGER analytics_slots_conversation_queue AFTER UPDATE OF queue_id ON conversations
        FOR EACH ROW WHEN (OLD.queue_id IS DISTINCT FROM NEW.queue_id)
        EXECUTE FUNCTION analytics_slots_conversation_queue_changed()`);
    await q.query(`
      CREATE TRIGGER analytics_slots_conversation_delete BEFORE DELETE ON conversations
        FOR EACH ROW EXECUTE FUNCTION analytics_slots_conversation_deleting()`);

    // Backfill, set-based.
    await q.query(`
      INSERT INTO analytics_message_slots (workspace_id, slot, channel_id, queue_id, inbound, outbound, ai_replies)
      SELECT m.workspace_id, analytics_slot(m.created_at), m.channel_id, c.queue_id,
             count(*) FILTER (WHERE m.direction = 'INBOUND'), count(*) FILTER (WHERE m.direction = 'OUTBOUND'),
             count(*) FILTER (WHERE m.sender_type = 'AI')
        FROM messages m
        JOIN conversations c ON c.workspace_id = m.workspace_id AND c.id = m.conversation_id
       GROUP BY 1, 2, 3, 4`);

    // AI figures: AI replies by time (distinct conversations in a window) and "has an AGENT message"
    // probes per conversation, without reading the heap.
    await q.query(
      `CREATE INDEX messages_sender_conversation_idx ON messages (workspace_id, sender_type, conversation_id)
         INCLUDE (created_at)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS messages_sender_conversation_idx`);
    await q.query(`DROP TRIGGER IF EXISTS analytics_slots_conversation_delete ON conversations`);
    await q.query(`DROP TRIGGER IF EXISTS analytics_slots_conversation_queue ON conversations`);
    await q.query(`DROP TRIGGER IF EXISTS analytics_slots_messages_update ON messages`);
    await q.query(`DROP TRIGGER IF EXISTS analytics_slots_messages_delete ON messages`);
    await q.query(`DROP TRIGGER IF EXISTS analytics_slots_messages_insert ON messages`);
    await q.query(`DROP FUNCTION IF EXISTS analytics_slots_conversation_deleting()`);
    await q.query(`DROP FUNCTION IF EXISTS analytics_slots_conversation_queue_changed()`);
    await q.query(`DROP FUNCTION IF EXISTS analytics_slots_message_updated()`);
    await q.query(`DROP FUNCTION IF EXISTS analytics_slots_messages_deleted()`);
    await q.query(`DROP FUNCTION IF EXISTS analytics_slots_messages_inserted()`);
    await q.query(`DROP FUNCTION IF EXISTS analytics_slots_add_conversation(uuid, uuid, uuid, integer)`);
    await q.query(`DROP FUNCTION IF EXISTS analytics_slot(timestamptz)`);
    await q.query(`DROP TABLE IF EXISTS analytics_message_slots`);
  }
}
