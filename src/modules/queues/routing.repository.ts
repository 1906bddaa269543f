import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { AgentStatusEntity, type PresenceStatus } from './agent-status.entity';
import type { QueueStrategy } from './queue.entity';

/** Conversations an agent is working: assigned and not resolved (ON_HOLD still takes a seat). */
const openConversationsOf = (userColumn: string): string => `(SELECT count(*)::int FROM conversations c
   WHERE c.workspace_id = $1 AND c.assignee_id = ${userColumn} AND c.status IN ('OPEN', 'ON_HOLD'))`;

export const DEFAULT_MAX_CONVERSATIONS = 5;

export interface RoutingCandidate {
  readonly userId: string;
  readonly maxConversations: number;
  readonly openConversations: number;
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
  async routingState(queueId: string): Promise<RoutingState | null> {
    if (!isUuid(queueId)) return null;
    const rows: {
      strategy: Exclude<QueueStrategy, 'MANUAL'>;
      pointer: string | null;
      user_id: string;
      max_conversations: number;
      last_assigned_at: Date | null;
      open: number;
    }[] = await this.query(
      `SELECT q.strategy, ptr.user_id AS pointer,
              s.user_id, s.max_conversations, s.last_assigned_at, ${openConversationsOf('s.user_id')} AS open
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
      online: rows.map((r) => ({
        userId: r.user_id,
        maxConversations: r.max_conversations,
        openConversations: r.open,
        lastAssignedAt: r.last_assigned_at,
      })),
    };
  }

  /**
   * Locks the first of `userIds` (in that order) that is still ONLINE and whose status row no other
   * transaction holds, skipping held ones; null when all are held (or gone). With `wait`, only the
   * first is tried and a held row is waited for. The lock lasts until the transaction ends: it is what
   * keeps two transactions from taking the same agent's last seat.
   */
  async lockOnlineAgent(userIds: readonly string[], options: { wait: boolean }): Promise<string | null> {
    if (userIds.length === 0) return null;
    const ids = options.wait ? userIds.slice(0, 1) : userIds;
    const rows: { user_id: string }[] = await this.query(
      `SELECT s.user_id FROM agent_status s
       WHERE s.workspace_id = $1 AND s.user_id = ANY($2::uuid[]) AND s.presence = 'ONLINE'
       ORDER BY array_position($2::uuid[], s.user_id) LIMIT 1
       FOR UPDATE${options.wait ? '' : ' SKIP LOCKED'}`,
      [ids],
    );
    return rows[0]?.user_id ?? null;
  }

  /**
   * Takes a seat of an agent whose status row this transaction has locked: when the agent is below
   * capacity, stamps the agent's last assignment (LEAST_BUSY's tie-break) and the queue's round-robin
   * pointer and returns true; false when full. Must be a statement after the lock: its snapshot then
   * includes every assignment committed by the lock's previous holders (READ COMMITTED).
   */
  async claimSeat(queueId: string, userId: string): Promise<boolean> {
    const rows: { user_id: string }[] = await this.query(
      `WITH seat AS (
         UPDATE agent_status s SET last_assigned_at = clock_timestamp(), updated_at = now()
         WHERE s.workspace_id = $1 AND s.user_id = $3 AND ${openConversationsOf('s.user_id')} < s.max_conversations
         RETURNING s.user_id, s.last_assigned_at
       ), pointer AS (
         UPDATE queue_members qm SET last_assigned_at = seat.last_assigned_at
         FROM seat WHERE qm.workspace_id = $1 AND qm.queue_id = $2 AND qm.user_id = seat.user_id
       )
       SELECT user_id FROM seat`,
      [queueId, userId],
    );
    return rows.length > 0;
  }

  /** Every member with capacity, presence and open conversations (no status row: OFFLINE, default capacity). */
  async workloads(): Promise<AgentWorkload[]> {
    const rows: { user_id: string; max_conversations: number; presence: PresenceStatus; open: number }[] =
      await this.query(
        `SELECT m.user_id,
                coalesce(st.max_conversations, ${DEFAULT_MAX_CONVERSATIONS}) AS max_conversations,
                coalesce(st.presence, 'OFFLINE') AS presence,
                ${openConversationsOf('m.user_id')} AS open
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
