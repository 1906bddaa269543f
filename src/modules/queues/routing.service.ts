import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { EventBus } from 'src/core/events/event-bus';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import { ConversationAssignmentsPort } from './conversation-assignments.port';
import { QueuesRepository } from './queues.repository';
import { type RoutingState, RoutingRepository } from './routing.repository';

/** Seat claims of one pick that wait for other transactions' claims before giving up. */
const MAX_CLAIM_ATTEMPTS = 5;

/**
 * Who gets a conversation (DESIGN §5.2). Only ONLINE members below capacity are picked.
 * ROUND_ROBIN: the next such member (by user id) after the last one assigned — the pointer is the
 * latest `queue_members.last_assigned_at` of the queue, in the database. LEAST_BUSY: fewest open
 * conversations, ties to the one whose last assignment is oldest (idle longest). MANUAL: nobody.
 * Nobody available → the conversation waits in the queue and is assigned, oldest first, when someone
 * comes ONLINE or frees capacity.
 *
 * Concurrency (any number of workers, nothing in process memory): nothing queue-wide is locked. The
 * candidates are tried in strategy order; each is locked (its `agent_status` row, skipping rows other
 * transactions hold) and its seats are counted again in a later statement, which sees every seat its
 * previous holders took, so capacity is never exceeded; a full one is passed over. Concurrent picks
 * thus spread over the candidates. When every remaining candidate is held, the pick waits for them
 * rather than reporting nobody available, and when the candidates are full only with seats other
 * running transactions have claimed, it waits for those transactions and tries again. On PostgreSQL the claim commits apart at once (a claim row
 * that counts while the picking transaction runs, handed over to its assignment at its commit), so the
 * agent's row is locked only for the claim, not until the new conversation's transaction commits
 * (RoutingRepository.claimSeat).
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
      const state = await this.routing.routingState(queueId);
      if (!state) return null;
      const candidates = rankAgents(state);
      for (let attempt = 1; ; attempt++) {
        const seat = await this.routing.claimSeat(queueId, candidates, state.owner);
        if (seat.userId || seat.pending.length === 0 || attempt >= MAX_CLAIM_ATTEMPTS) return seat.userId;
        // Full only with seats other running transactions claimed: one that ends without its
        // assignment frees its seat, so wait for them and try again (as a wait for the agent's lock did).
        await this.routing.awaitClaims(seat.pending);
      }
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

/**
 * The members below capacity (as last read; seats claimed by running transactions not counted, as they
 * may still be freed) in the order the strategy prefers them (exported for unit tests). ROUND_ROBIN: by user id, starting after the pointer and wrapping around. LEAST_BUSY: fewest
 * open conversations, then the oldest last assignment (never assigned first), then user id.
 */
export function rankAgents(state: RoutingState): string[] {
  // A seat claimed by a running transaction may still be freed (it ends without the assignment): the
  // claim waits for such a seat when nobody else has room.
  const available = state.online.filter((m) => m.openConversations - m.claimedSeats < m.maxConversations);
  if (state.strategy === 'ROUND_ROBIN') {
    const pointer = state.lastAssignedUserId ?? '';
    const after = available.filter((m) => m.userId > pointer);
    const upTo = available.filter((m) => m.userId <= pointer);
    return [...after, ...upTo].map((m) => m.userId);
  }
  return [...available]
    .sort(
      (a, b) =>
        a.openConversations - b.openConversations ||
        (a.lastAssignedAt?.getTime() ?? 0) - (b.lastAssignedAt?.getTime() ?? 0) ||
        (a.userId < b.userId ? -1 : 1),
    )
    .map((m) => m.userId);
}
