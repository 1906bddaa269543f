import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from 'src/core/database/pg-errors';
import { TransactionHost } from 'src/core/database/transaction-host';
import { CacheInvalidation } from 'src/core/events/cache-invalidation';
import { AppException } from 'src/core/errors/app.exception';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { ChannelConnectionEntity } from './channel-connection.entity';
import type { ChannelType } from './channel.types';

export interface ChannelListFilter {
  readonly type?: ChannelType;
  readonly status?: string;
}

@Injectable()
export class ChannelsRepository extends WorkspaceScopedRepository<ChannelConnectionEntity> {
  constructor(
    tx: TransactionHost,
    private readonly invalidation: CacheInvalidation,
  ) {
    super(tx, ChannelConnectionEntity, 'ch', 'Channel');
  }

  /** Every write of connections tells the connection caches (ChannelDirectory) of every process, at commit. */
  protected override afterWrite(): Promise<void> {
    return this.invalidation.changed('channels');
  }

  findPage(query: CursorPaginationQuery, filter: ChannelListFilter): Promise<Page<ChannelConnectionEntity>> {
    const qb = this.scopedQuery();
    if (filter.type) qb.andWhere('ch.type = :type', { type: filter.type });
    if (filter.status) qb.andWhere('ch.status = :status', { status: filter.status });
    return findKeysetPage(qb, query, newestFirst<ChannelConnectionEntity>('ch'));
  }

  /** Inserts a connection; another ACTIVE connection of the same platform account (any workspace) → 409. */
  async create(values: Omit<Partial<ChannelConnectionEntity>, 'workspaceId'>): Promise<ChannelConnectionEntity> {
    try {
      return await this.insert(values);
    } catch (error) {
      if (isUniqueViolation(error)) throw AppException.conflict('This account is already connected');
      throw error;
    }
  }

  /**
   * Marks a connection DISCONNECTED and erases its secrets and lookup keys; unknown or already
   * disconnected → 404. The Telegram secret token's SHA-256 stays (not a secret; the unique index
   * covers ACTIVE rows only), so a later webhook naming it answers 404 as DESIGN §4.1 says.
   */
  async disconnect(id: string): Promise<void> {
    if (!isUuid(id)) throw AppException.notFound('Channel');
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set({
        status: 'DISCONNECTED',
        secrets: null,
        verifyTokenHash: null,
        hasOutboundSecret: false,
        disconnectedAt: () => 'now()',
      })
      .where(`id = :id AND workspace_id = :workspaceId AND status = 'ACTIVE'`, { id, workspaceId: this.workspaceId })
      .execute();
    await this.afterWrite();
    if (!result.affected) throw AppException.notFound('Channel');
  }
}
