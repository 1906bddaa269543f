import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Agent seats claimed apart from the new conversation's transaction (session 22, issue 16 item 3).
 *
 * - `agent_seat_claims`: one row per seat routing took for a transaction that has not committed yet
 *   (`owner`, its top-level transaction id). On PostgreSQL the claim commits on its own connection at
 *   once, so the agent's `agent_status` row is locked only for the claim; the owner deletes the row in
 *   its own transaction, with the assignment, so at its commit the conversation and the claim's end
 *   become visible together.
 * - `agent_seats_claimed(ws, agent)`: the agent's claims still live in the calling statement's
 *   snapshot: the owner has not aborted and had not committed when the snapshot was taken (a claim
 *   whose owner committed before the snapshot, yet still visible, was left behind by a rolled-back
 *   savepoint: it holds nothing). `agent_seats_taken(ws, agent)`: those plus the agent's open
 *   conversations (OPEN / ON_HOLD).
 * - `claim_agent_seat(ws, queue, candidates, owner)`: tries the candidates in the given (strategy)
 *   order, each locked (`FOR UPDATE`, those other transactions hold skipped on the first pass and
 *   waited for on the second), and in the next statement — whose snapshot includes everything the
 *   lock's previous holders committed — takes a seat when the agent is below capacity: stamps the
 *   agent's and the queue member's last assignment, and with an owner records the claim. Returns the
 *   agent and the claim (null without an owner: the caller's transaction keeps the lock until it ends);
 *   when nobody could take it, no agent and the claims of other running transactions on the full
 *   candidates (`pending`): one of them that ends without its assignment frees its seat. Stale claims
 *   (owner aborted, or committed without deleting its claim) of a locked candidate are deleted.
 */
export class AgentSeatClaims1764005000000 implements MigrationInterface {
  name = 'AgentSeatClaims1764005000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE agent_seat_claims (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL,
        user_id uuid NOT NULL,
        owner xid8 NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        FOREIGN KEY (workspace_id, user_id) REFERENCES memberships (workspace_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX agent_seat_claims_agent ON agent_seat_claims (workspace_id, user_id)`);
    await q.query(`
      CREATE FUNCTION agent_seats_claimed(ws uuid, agent uuid) RETURNS integer
        LANGUAGE sql STABLE
        AS $$
          SELECT count(*)::int FROM agent_seat_claims r
           WHERE r.workspace_id = ws AND r.user_id = agent
             AND pg_xact_status(r.owner) IN ('in progress', 'committed')
             AND NOT pg_visible_in_snapshot(r.owner, pg_current_snapshot())
        $$`);
    await q.query(`
      CREATE FUNCTION agent_seats_taken(ws uuid, agent uuid) RETURNS integer
        LANGUAGE sql STABLE
        AS $$
          SELECT (SELECT count(*) FROM conversations c
                   WHERE c.workspace_id = ws AND c.assignee_id = agent AND c.status IN ('OPEN', 'ON_HOLD'))::int
               + agent_seats_claimed(ws, agent)
        $$`);
    await q.query(`
      CREATE FUNCTION claim_agent_seat(ws uuid, queue uuid, candidates uuid[], claim_owner xid8)
        RETURNS TABLE (picked uuid, claim uuid, pending uuid[])
        LANGUAGE plpgsql
        AS $$
        DECLARE
          agent uuid;
          held uuid[] := '{}';
          full_agents uuid[] := '{}';
          pass int;
          seat_at timestamptz;
          claimed uuid;
        BEGIN
          FOR pass IN 1..2 LOOP
            FOREACH agent IN ARRAY CASE WHEN pass = 1 THEN candidates ELSE held END LOOP
              IF pass = 1 THEN
                PERFORM 1 FROM agent_status s
                 WHERE s.workspace_id = ws AND s.user_id = agent AND s.presence = 'ONLINE'
                 FOR UPDATE SKIP LOCKED;
                IF NOT FOUND THEN
                  held := held || agent;
                  CONTINUE;
                END IF;
              ELSE
                PERFORM 1 FROM agent_status s
                 WHERE s.workspace_id = ws AND s.user_id = agent AND s.presence = 'ONLINE'
                 FOR UPDATE;
                CONTINUE WHEN NOT FOUND;
              END IF;
              -- A new statement, so a new snapshot: it sees every seat the lock's earlier holders took.
              -- Claims left by owners that ended without handing them over (never one a waiting pick holds).
              DELETE FROM agent_seat_claims r
               WHERE r.id IN (
                 SELECT r2.id FROM agent_seat_claims r2
                  WHERE r2.workspace_id = ws AND r2.user_id = agent
                    AND (pg_xact_status(r2.owner) = 'aborted' OR pg_visible_in_snapshot(r2.owner, pg_current_snapshot()))
                    FOR UPDATE SKIP LOCKED);
              UPDATE agent_status s SET last_assigned_at = clock_timestamp(), updated_at = now()
               WHERE s.workspace_id = ws AND s.user_id = agent
                 AND agent_seats_taken(ws, agent) < s.max_conversations
              RETURNING s.last_assigned_at INTO seat_at;
              IF NOT FOUND THEN
                full_agents := full_agents || agent;
                CONTINUE;
              END IF;
              UPDATE queue_members qm SET last_assigned_at = seat_at
               WHERE qm.workspace_id = ws AND qm.queue_id = queue AND qm.user_id = agent;
              claimed := NULL;
              IF claim_owner IS NOT NULL THEN
                INSERT INTO agent_seat_claims (workspace_id, user_id, owner)
                VALUES (ws, agent, claim_owner) RETURNING id INTO claimed;
              END IF;
              picked := agent;
              claim := claimed;
              pending := '{}';
              RETURN NEXT;
              RETURN;
            END LOOP;
          END LOOP;
          -- Nobody: the claims of other running transactions that fill the full candidates. When one
          -- of them ends without its assignment, its seat is free again: the caller may wait for them.
          picked := NULL;
          claim := NULL;
          pending := ARRAY(
            SELECT r.id FROM agent_seat_claims r
             WHERE r.workspace_id = ws AND r.user_id = ANY (full_agents)
               AND r.owner IS DISTINCT FROM claim_owner AND pg_xact_status(r.owner) = 'in progress');
          RETURN NEXT;
        END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP FUNCTION claim_agent_seat(uuid, uuid, uuid[], xid8)`);
    await q.query(`DROP FUNCTION agent_seats_taken(uuid, uuid)`);
    await q.query(`DROP FUNCTION agent_seats_claimed(uuid, uuid)`);
    await q.query(`DROP TABLE agent_seat_claims`);
  }
}
