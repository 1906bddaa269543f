import { Injectable } from '@nestjs/common';
import { CacheInvalidation, TopicCache } from 'src/core/events/cache-invalidation';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import type { AiConversationStatus } from './ai-conversation-state.entity';
import { AiConversationStatesRepository } from './ai-conversation-states.repository';

/**
 * Per-conversation AI state (DESIGN §14): a handoff keeps the AI silent on that conversation; a
 * flow's HANDOFF_AI hands it (back) to the AI agent, HANDOFF_HUMAN keeps the AI silent.
 * Joins the caller's transaction.
 */
@Injectable()
export class AiConversationStatesService {
  /**
   * Per workspace and conversation: its status (ACTIVE when it has no row), read by the AI stage for
   * every inbound message (issue 16 item 3). Every state write tells every process at commit (topic
   * `ai-states`: writes are rare — a handoff, a flow's HANDOFF step), so between writes it is served
   * from memory.
   */
  private readonly statuses: TopicCache<AiConversationStatus>;

  constructor(
    private readonly states: AiConversationStatesRepository,
    private readonly invalidation: CacheInvalidation,
  ) {
    this.statuses = new TopicCache(invalidation, 'ai-states');
  }

  statusOf(conversationId: string): Promise<AiConversationStatus> {
    return this.statuses.get(
      `${getTenantContext().workspaceId}:${conversationId}`,
      async () => (await this.states.statusOf(conversationId)) ?? 'ACTIVE',
    );
  }

  /**
   * A conversation this transaction has just created has no state row (ACTIVE): remembered without
   * a read, so its next message's `statusOf` is served from memory too (issue 16 item 3).
   */
  rememberNew(conversationId: string): void {
    this.statuses.prime(`${getTenantContext().workspaceId}:${conversationId}`, 'ACTIVE');
  }

  /** The status as committed now (not from memory): where a write of a moment ago must be seen. */
  async committedStatusOf(conversationId: string): Promise<AiConversationStatus> {
    return (await this.states.statusOf(conversationId)) ?? 'ACTIVE';
  }

  handToAi(conversationId: string): Promise<void> {
    return this.write(conversationId, { status: 'ACTIVE' });
  }

  handToHuman(conversationId: string): Promise<void> {
    return this.write(conversationId, { status: 'HUMAN' });
  }

  /** The AI agent gave up (no confident answer, a handoff keyword, an LLM failure). */
  handOff(conversationId: string, agentId: string | null, reason: string): Promise<void> {
    return this.write(conversationId, { status: 'HANDED_OFF', agentId, handoffReason: reason });
  }

  private async write(conversationId: string, values: Parameters<AiConversationStatesRepository['upsert']>[1]) {
    await this.states.upsert(conversationId, values);
    await this.invalidation.changed('ai-states');
  }
}
