import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import type { CursorPaginationQuery } from 'src/core/http/pagination';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { AiAgentEntity } from './ai-agent.entity';

@Injectable()
export class AiAgentsRepository extends WorkspaceScopedRepository<AiAgentEntity> {
  constructor(tx: TransactionHost) {
    super(tx, AiAgentEntity, 'a', 'AI agent');
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
