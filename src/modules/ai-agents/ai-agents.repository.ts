import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { CacheInvalidation } from 'src/core/events/cache-invalidation';
import { type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import type { CursorPaginationQuery } from 'src/core/http/pagination';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { AiAgentEntity } from './ai-agent.entity';
import type { AiConversationStatus } from './ai-conversation-state.entity';

@Injectable()
export class AiAgentsRepository extends WorkspaceScopedRepository<AiAgentEntity> {
  constructor(
    tx: TransactionHost,
    private readonly invalidation: CacheInvalidation,
  ) {
    super(tx, AiAgentEntity, 'a', 'AI agent');
  }

  /** Every write of agents tells the pipeline's cache of which channels have one, in every process, at commit. */
  protected override afterWrite(): Promise<void> {
    return this.invalidation.changed('ai-agents');
  }

  findPage(query: CursorPaginationQuery): Promise<Page<AiAgentEntity>> {
    return findKeysetPage(this.scopedQuery(), query, newestFirst<AiAgentEntity>('a'));
  }

  /** The active agent that answers on a channel: one naming the channel first, then one for every channel; oldest first. */
  findActiveForChannel(channelId: string): Promise<AiAgentEntity | null> {
    return this.scopedQuery()
      .andWhere('a.active')
      .andWhere(`(:channelId = ANY(a.channel_ids) OR cardinality(a.channel_ids) = 0)`, { channelId })
      .orderBy('cardinality(a.channel_ids) = 0', 'ASC')
      .addOrderBy('a.created_at', 'ASC')
      .addOrderBy('a.id', 'ASC')
      .getOne();
  }

  /**
   * The pipeline's look-up (stage 410), one statement: the active agent for the channel (as
   * `findActiveForChannel`) and the conversation's AI state (none = ACTIVE: the agent may answer).
   */
  async findActiveForConversation(
    channelId: string,
    conversationId: string,
  ): Promise<{ agent: AiAgentEntity; conversationStatus: AiConversationStatus } | null> {
    const { entities, raw } = await this.scopedQuery()
      .andWhere('a.active')
      .andWhere(`(:channelId = ANY(a.channel_ids) OR cardinality(a.channel_ids) = 0)`, { channelId })
      .addSelect(
        `(SELECT s.status FROM ai_conversation_states s
           WHERE s.workspace_id = a.workspace_id AND s.conversation_id = :conversationId)`,
        'conversation_ai_status',
      )
      .setParameter('conversationId', conversationId)
      .orderBy('cardinality(a.channel_ids) = 0', 'ASC')
      .addOrderBy('a.created_at', 'ASC')
      .addOrderBy('a.id', 'ASC')
      .limit(1)
      .getRawAndEntities<{ conversation_ai_status: AiConversationStatus | null }>();
    const agent = entities[0];
    if (!agent) return null;
    return { agent, conversationStatus: raw[0]?.conversation_ai_status ?? 'ACTIVE' };
  }

  update(id: string, patch: Omit<Partial<AiAgentEntity>, 'id' | 'workspaceId'>): Promise<AiAgentEntity> {
    return this.updateById(id, { ...patch, updatedAt: new Date() });
  }
}
