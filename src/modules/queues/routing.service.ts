import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { EventBus } from 'src/core/events/event-bus';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import { ConversationAssignmentsPort } from './conversation-assignments.port';
import { QueuesRepository } from './queues.repository';
import { type LockedQueue, type RoutingCandidate, RoutingRepository } from './routing.repository';

/**
 * Who gets a conversation (DESIGN §5.2). Only ONLINE members below capacity are picked.
 * ROUND_ROBIN: the next such member (by user id) after the last one assigned — the pointer is the
 * queue row, updated under its row lock, so it is right with any number of workers. LEAST_BUSY:
 * fewest open conversations, ties to the one whose last assignment is oldest (idle longest).
 * MANUAL: nobody. Nobody available → the conversation waits in the queue and is assigned, oldest
 * first, when someone comes ONLINE or frees capacity.
 */
@Injectable()
export class RoutingService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly routing: RoutingRepository,
    private readonly queues: QueuesRepository,
    private readonly conversations: ConversationAssignmentsPort,
    private readonly events: EventBus,
  ) {}

  /** Picks (and records) the agent for a new conversation of this queue; null when nobody can take it. Joins the open transaction. */
  pickAgent(queueId: string): Promise<string | null> {
    return this.tx.run(async () => {
      const queue = await this.routing.lockQueue(queueId);
      if (!queue || queue.strategy === 'MANUAL') return null;
      const available = (await this.routing.onlineMembers(queueId)).filter(
        (m) => m.openConversations < m.maxConversations,
      );
      const chosen = chooseAgent(queue, available);
      if (!chosen) return null;
      await this.routing.recordAssignment(queueId, chosen);
      return chosen;
    });
  }

  /** The agent came ONLINE: their queues' waiting conversations are assigned, oldest first. */
  async onAgentAvailable(userId: string): Promise<number> {
    return this.assignWaiting(await this.queues.autoAssigningQueueIdsOf(userId));
  }

  /**
   * Capacity was freed (a conversation resolved, a reassignment, a higher limit): same as coming
   * ONLINE. The wrap-up of a conversation calls this after its transaction commits.
   */
  onCapacityFreed(userId: string): Promise<number> {
    return this.onAgentAvailable(userId);
  }

  /** Assigns waiting conversations of these queues, oldest first, while someone is available. One transaction each. */
  async assignWaiting(queueIds: readonly string[]): Promise<number> {
    let assigned = 0;
    for (const queueId of queueIds) {
      for (let i = 0; i < 10_000; i++) {
        const done = await this.tx.run(async () => {
          const conversationId = await this.conversations.lockOldestWaiting(queueId);
          if (!conversationId) return null;
          const userId = await this.pickAgent(queueId);
          if (!userId) return null;
          const conversation = await this.conversations.assign(conversationId, userId);
          await this.events.publish('conversation.updated', getTenantContext().workspaceId, {
            conversationId,
            conversation,
            change: 'assigned',
            changes: ['assigneeId', 'assignedAt'],
          });
          return { conversationId, userId };
        });
        if (!done) break;
        assigned++;
      }
    }
    return assigned;
  }
}

/** The pick among available members (exported for unit tests). */
export function chooseAgent(queue: LockedQueue, available: readonly RoutingCandidate[]): string | null {
  if (available.length === 0) return null;
  if (queue.strategy === 'ROUND_ROBIN') {
    const pointer = queue.lastAssignedUserId ?? '';
    const next = available.find((m) => m.userId > pointer) ?? available[0];
    return next?.userId ?? null;
  }
  const ranked = [...available].sort(
    (a, b) =>
      a.openConversations - b.openConversations ||
      (a.lastAssignedAt?.getTime() ?? 0) - (b.lastAssignedAt?.getTime() ?? 0) ||
      (a.userId < b.userId ? -1 : 1),
  );
  return ranked[0]?.userId ?? null;
}
