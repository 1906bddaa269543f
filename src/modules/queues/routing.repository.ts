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

export interface LockedQueue {
  readonly id: string;
  readonly strategy: QueueStrategy;
  readonly lastAssignedUserId: string | null;
}

export interface AgentWorkload {
  readonly userId: string;
  readonly maxConversations: number;
  readonly presence: PresenceStatus;
  readonly openConversations: number;
}

/**
 * Routing state: presence and capacity per member, the queue row lock and round-robin pointer. It
 * reads the members' open conversations (a count in SQL) but never writes `conversations`: the
 * assignments go through the ConversationAssignments port the inbox fills.
 */
@Injectable()
export class RoutingRepository extends WorkspaceScopedRepository<AgentStatusEntity> {
  constructor(tx: TransactionHost) {
    super(tx, AgentStatusEntity, 's', 'Agent');
  }

  /** The queue's row, locked until the transaction ends: one assignment at a time per queue, on any worker. */
  async lockQueue(queueId: string): Promise<LockedQueue | null> {
    if (!isUuid(queueId)) return null;
    const rows: { id: string; strategy: QueueStrategy; last_assigned_user_id: string | null }[] = await this.query(
      `SELECT id, strategy, last_assigned_user_id FROM queues WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
      [queueId],
    );
    const row = rows[0];
    return row ? { id: row.id, strategy: row.strategy, lastAssignedUserId: row.last_assigned_user_id } : null;
  }

  /** ONLINE members of the queue with their workload, ordered by user id (the round-robin order). */
  async onlineMembers(queueId: string): Promise<RoutingCandidate[]> {
    const rows: { user_id: string; max_conversations: number; last_assigned_at: Date | null; open: number }[] =
      await this.query(
        `SELECT s.user_id, s.max_conversations, s.last_assigned_at, ${openConversationsOf('s.user_id')} AS open
         FROM queue_members qm
         JOIN agent_status s ON s.workspace_id = qm.workspace_id AND s.user_id = qm.user_id
         WHERE qm.workspace_id = $1 AND qm.queue_id = $2 AND s.presence = 'ONLINE'
         ORDER BY s.user_id`,
        [queueId],
      );
    return rows.map((r) => ({
      userId: r.user_id,
      maxConversations: r.max_conversations,
      openConversations: r.open,
      lastAssignedAt: r.last_assigned_at,
    }));
  }

  /** Moves the round-robin pointer and stamps the agent's last assignment (LEAST_BUSY's tie-break). */
  async recordAssignment(queueId: string, userId: string): Promise<void> {
    await this.query(
      `UPDATE queues SET last_assigned_user_id = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2`,
      [queueId, userId],
    );
    await this.query(
      `UPDATE agent_status SET last_assigned_at = clock_timestamp(), updated_at = now() WHERE workspace_id = $1 AND user_id = $2`,
      [userId],
    );
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
