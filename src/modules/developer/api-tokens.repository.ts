import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { type CursorPaginationQuery, type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { ApiTokenEntity } from './api-token.entity';

@Injectable()
export class ApiTokensRepository extends WorkspaceScopedRepository<ApiTokenEntity> {
  constructor(tx: TransactionHost) {
    super(tx, ApiTokenEntity, 't', 'API token');
  }

  /** Active tokens (not revoked), newest first. */
  findPage(query: CursorPaginationQuery): Promise<Page<ApiTokenEntity>> {
    return findKeysetPage(this.scopedQuery().andWhere('t.revoked_at IS NULL'), query, newestFirst<ApiTokenEntity>('t'));
  }

  /** Revokes a token of the caller's workspace (kept for audit); unknown or already revoked → 404. */
  async revoke(id: string): Promise<void> {
    if (!isUuid(id)) throw AppException.notFound('API token');
    const result = await this.repo
      .createQueryBuilder()
      .update()
      .set({ revokedAt: () => 'now()' })
      .where('id = :id AND workspace_id = :workspaceId AND revoked_at IS NULL', { id, workspaceId: this.workspaceId })
      .execute();
    if (!result.affected) throw AppException.notFound('API token');
  }

  async markUsed(id: string, usedAt: Date): Promise<void> {
    await this.repo
      .createQueryBuilder()
      .update()
      .set({ lastUsedAt: usedAt })
      .where('id = :id AND workspace_id = :workspaceId AND (last_used_at IS NULL OR last_used_at < :usedAt)', {
        id,
        workspaceId: this.workspaceId,
        usedAt,
      })
      .execute();
  }
}
