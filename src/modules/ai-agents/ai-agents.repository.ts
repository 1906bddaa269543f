import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { CacheInvalidation } from 'src/core/events/cache-invalidation';
import { type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import type { CursorPaginationQuery } from 'src/core/http/pagination';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { AiAgentEntity } from './ai-agent.entity';

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

  update(id: string, patch: Omit<Partial<AiAgentEntity>, 'id' | 'workspaceId'>): Promise<AiAgentEntity> {
    return this.updateById(id, { ...patch, updatedAt: new Date() });
  }
}
