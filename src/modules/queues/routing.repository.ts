import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { AgentStatusEntity, type PresenceStatus } from './agent-status.entity';
import type { QueueStrategy } from './queue.entity';

/**
 * Seats an agent has taken: conversations assigned and not resolved (ON_HOLD still takes a seat), plus
 * seats claimed for transactions still running (SQL function `agent_seats_taken`, migration
 * 1764005000000), as of the statement's snapshot.
 */
const seatsTakenBy = (userColumn: string): string => `agent_seats_taken($1, ${userColumn})`;

export const DEFAULT_MAX_CONVERSATIONS = 5;

export interface RoutingCandidate {
  readonly userId: string;
  readonly maxConversations: number;
  /** Seats taken: open conversations, plus seats claimed by transactions still running. */
  readonly openConversations: number;
  /** Of those, the seats claimed by running transactions (one that ends unassigned frees its seat). */
  readonly claimedSeats: number;
  readonly lastAssignedAt: Date | null;
}

/** What routing reads for a pick, in one snapshot (nothing locked). */
export interface RoutingState {
  readonly strategy: Exclude<QueueStrategy, 'MANUAL'>;
  /** The round-robin pointer: the member this queue assigned last (null: nobody yet). */
  readonly lastAssignedUserId: string | null;
  /** ONLINE members with their workload, ordered by user id (the round-robin order). */
  readonly online: RoutingCandidate[];
}

/** The routing state as read by a transaction, with that transaction's id where seats are claimed apart. */
export interface RoutingRead extends RoutingState {
  /** PostgreSQL: the reading transaction's id (`pg_current_xact_id`), the owner of the seat it claims. */
  readonly owner: string | null;
}

/** What a seat claim found: the agent who took the seat, or (nobody) other transactions' claims filling the candidates. */
export interface SeatClaim {
  readonly userId: string | null;
  /** Nobody: claims of running transactions on full candidates; one that ends unassigned frees a seat. */
  readonly pending: readonly string[];
}

interface ClaimRow {
  picked: string | null;
  claim: string | null;
  pending: string[];
}

export interface AgentWorkload {
  readonly userId: string;
  readonly maxConversations: number;
  readonly presence: PresenceStatus;
  readonly openConversations: number;
}

/**
 * Routing state: presence and capacity per member, agent row locks and the round-robin pointer. It
 * reads the members' open conversations (a count in SQL) but never writes `conversations`: the
 * assignments go through the ConversationAssignments port the inbox fills.
 */
@Injectable()
export class RoutingRepository extends WorkspaceScopedRepository<AgentStatusEntity> {
  constructor(tx: TransactionHost) {
    super(tx, AgentStatusEntity, 's', 'Agent');
  }

  /**
   * The queue's strategy, round-robin pointer and ONLINE members, read without locking anything;
   * null for a MANUAL or unknown queue or when no member is ONLINE. The pointer is the member whose
   * last assignment from this queue is the latest (`queue_members.last_assigned_at`): each assignment
   * stamps only its own member row, so moving it never waits behind another transaction.
   */
  async routingState(queueId: string): Promise<RoutingRead | null> {
    if (!isUuid(queueId)) return null;
    const rows: {
      owner?: string;
      strategy: Exclude<QueueStrategy, 'MANUAL'>;
      pointer: string | null;
      user_id: string;
      max_conversations: number;
      last_assigned_at: Date | null;
      open: number;
      claimed: number;
    }[] = await this.query(
      `SELECT q.strategy, ptr.user_id AS pointer,${this.commitsApart ? ' pg_current_xact_id()::text AS owner,' : ''}
              s.user_id, s.max_conversations, s.last_assigned_at, ${seatsTakenBy('s.user_id')} AS open,
              agent_seats_claimed($1, s.user_id) AS claimed
       FROM queues q
       JOIN queue_members qm ON qm.workspace_id = q.workspace_id AND qm.queue_id = q.id
       JOIN agent_status s ON s.workspace_id = qm.workspace_id AND s.user_id = qm.user_id
       LEFT JOIN LATERAL (
         SELECT p.user_id FROM queue_members p
         WHERE p.workspace_id = q.workspace_id AND p.queue_id = q.id AND p.last_assigned_at IS NOT NULL
         ORDER BY p.last_assigned_at DESC, p.user_id DESC LIMIT 1
       ) ptr ON true
       WHERE q.workspace_id = $1 AND q.id = $2 AND q.strategy <> 'MANUAL' AND s.presence = 'ONLINE'
       ORDER BY s.user_id`,
      [queueId],
    );
    const first = rows[0];
    if (!first) return null;
    return {
      strategy: first.strategy,
      lastAssignedUserId: first.pointer,
      owner: first.owner ?? null,
      online: rows.map((r) => ({
        userId: r.user_id,
        maxConversations: r.max_conversations,
        openConversations: r.open,
        claimedSeats: r.claimed,
        lastAssignedAt: r.last_assigned_at,
      })),
    };
  }

  /**
   * Takes a seat of the first of `candidates` (in that order) that is still ONLINE and below capacity,
   * for the open transaction; returns who, or nobody when every one is full or gone — then with the
   * claims of other running transactions that fill them, `pending` (SQL function
   * `claim_agent_seat`: each candidate's `agent_status` row is locked, rows other transactions hold
   * are skipped first and waited for last, and the seats are counted in the statement after the lock,
   * which sees every seat the lock's earlier holders took). Stamps the agent's last assignment
   * (LEAST_BUSY's tie-break) and the queue's round-robin pointer.
   *
   * With an `owner` (PostgreSQL) the claim commits at once apart from the open transaction, so the
   * agent's row is locked only for the claim; the seat is held by a claim row that counts while the
   * owner runs and that the open transaction deletes here, so its commit hands the seat over to the
   * assignment it commits (an abort frees it). Without (the embedded engine's one session) the open
   * transaction keeps the lock until it ends.
   */
  async claimSeat(queueId: string, candidates: readonly string[], owner: string | null): Promise<SeatClaim> {
    if (candidates.length === 0) return { userId: null, pending: [] };
    const claim = `SELECT c.picked, c.claim, c.pending FROM claim_agent_seat($1, $2, $3::uuid[], $4::xid8) c`;
    const apart = owner !== null && this.commitsApart;
    const params = [queueId, candidates, apart ? owner : null];
    const [seat] = apart
      ? await this.apartRows<ClaimRow>(claim, params)
      : await this.queryRows<ClaimRow>(claim, params);
    if (!seat?.picked) return { userId: null, pending: seat?.pending ?? [] };
    if (seat.claim) {
      await this.query(`DELETE FROM agent_seat_claims r WHERE r.workspace_id = $1 AND r.id = $2`, [seat.claim]);
    }
    return { userId: seat.picked, pending: [] };
  }

  /**
   * Waits until the transactions holding these seat claims have ended (a claim's owner keeps it locked
   * by deleting it). Afterwards a claim whose owner rolled back no longer counts.
   */
  async awaitClaims(claimIds: readonly string[]): Promise<void> {
    await this.query(
      `SELECT r.id FROM agent_seat_claims r WHERE r.workspace_id = $1 AND r.id = ANY($2::uuid[]) FOR KEY SHARE`,
      [claimIds],
    );
  }

  /** Every member with capacity, presence and open conversations (no status row: OFFLINE, default capacity). */
  async workloads(): Promise<AgentWorkload[]> {
    const rows: { user_id: string; max_conversations: number; presence: PresenceStatus; open: number }[] =
      await this.query(
        `SELECT m.user_id,
                coalesce(st.max_conversations, ${DEFAULT_MAX_CONVERSATIONS}) AS max_conversations,
                coalesce(st.presence, 'OFFLINE') AS presence,
                ${seatsTakenBy('m.user_id')} AS open
         FROM memberships m
         LEFT JOIN agent_status st ON st.workspace_id = m.workspace_id AND st.user_id = m.user_id
         WHERE m.workspace_id = $1
         ORDER BY m.created_at, m.user_id`,
      );
    return rows.map((r) => ({
      userId: r.user_id,
      maxConversations: r.max_conversations,
      presence: r.presence,
      openConversations: r.open,
    }));
  }

  async setCapacity(userId: string, maxConversations: number): Promise<void> {
    await this.query(
      `INSERT INTO agent_status (workspace_id, user_id, max_conversations) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id, user_id) DO UPDATE SET max_conversations = EXCLUDED.max_conversations, updated_at = now()`,
      [userId, maxConversations],
    );
  }

  /** The member's presence row, locked (null: never set). */
  async lockStatus(userId: string): Promise<{ presence: PresenceStatus; presenceChangedAt: Date } | null> {
    const rows: { presence: PresenceStatus; presence_changed_at: Date }[] = await this.query(
      `SELECT presence, presence_changed_at FROM agent_status WHERE workspace_id = $1 AND user_id = $2 FOR UPDATE`,
      [userId],
    );
    const row = rows[0];
    return row ? { presence: row.presence, presenceChangedAt: row.presence_changed_at } : null;
  }

  /** Sets presence and returns since when it holds. */
  async setPresence(userId: string, presence: PresenceStatus): Promise<Date> {
    const rows: { presence_changed_at: Date }[] = await this.query(
      `INSERT INTO agent_status (workspace_id, user_id, presence, presence_changed_at) VALUES ($1, $2, $3, now())
       ON CONFLICT (workspace_id, user_id) DO UPDATE
         SET presence = EXCLUDED.presence, presence_changed_at = now(), updated_at = now()
       RETURNING presence_changed_at`,
      [userId, presence],
    );
    return rows[0]!.presence_changed_at;
  }

  /** Closes the member's open presence interval and opens one for the new status. */
  async startPresenceInterval(userId: string, presence: PresenceStatus): Promise<void> {
    await this.query(
      `UPDATE presence_intervals SET ended_at = now() WHERE workspace_id = $1 AND user_id = $2 AND ended_at IS NULL`,
      [userId],
    );
    await this.query(
      `INSERT INTO presence_intervals (workspace_id, user_id, status, started_at) VALUES ($1, $2, $3, now())`,
      [userId, presence],
    );
  }
}
