import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { CatalogImportEntity } from './catalog-import.entity';
import type { ImportMapping } from './csv/header-guess.util';

/** A session claimed for commit: what the commit needs, read in the same statement that claimed it. */
export interface ClaimedImport {
  readonly id: string;
  readonly contentGzip: Buffer;
  readonly delimiter: string;
  readonly headers: string[];
  readonly mapping: ImportMapping;
  readonly totalRows: number;
}

@Injectable()
export class CatalogImportsRepository extends WorkspaceScopedRepository<CatalogImportEntity> {
  constructor(tx: TransactionHost) {
    super(tx, CatalogImportEntity, 'imp', 'Import');
  }

  /** A live (unexpired) session, with its file. */
  async findLiveWithContent(id: string): Promise<CatalogImportEntity | null> {
    if (!isUuid(id)) return null;
    return this.scopedQuery()
      .addSelect('imp.contentGzip')
      .andWhere('imp.id = :id', { id })
      .andWhere('imp.expires_at > now()')
      .getOne();
  }

  /** A live session without its file (to explain why a commit was refused). */
  async findLive(id: string): Promise<CatalogImportEntity | null> {
    if (!isUuid(id)) return null;
    return this.scopedQuery().andWhere('imp.id = :id', { id }).andWhere('imp.expires_at > now()').getOne();
  }

  /** READY → COMMITTING in one statement, so two commits of one session (on any instances) cannot both run. */
  async claimForCommit(id: string, expiresAt: Date): Promise<ClaimedImport | null> {
    if (!isUuid(id)) return null;
    const rows = await this.queryRows<{
      id: string;
      content_gzip: Buffer;
      delimiter: string;
      headers: string[];
      mapping: ImportMapping;
      total_rows: number;
    }>(
      `UPDATE catalog_imports SET status = 'COMMITTING', expires_at = GREATEST(expires_at, $3), updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND status = 'READY' AND expires_at > now()
       RETURNING id, content_gzip, delimiter, headers, mapping, total_rows`,
      [id, expiresAt],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      contentGzip: row.content_gzip,
      delimiter: row.delimiter,
      headers: row.headers,
      mapping: row.mapping,
      totalRows: row.total_rows,
    };
  }

  /** COMMITTED: the file is erased, the result kept until the session expires. */
  async finishCommit(id: string, mapping: ImportMapping, result: Record<string, unknown>): Promise<void> {
    await this.query(
      `UPDATE catalog_imports SET status = 'COMMITTED', content_gzip = NULL, mapping = $3::jsonb, result = $4::jsonb, updated_at = now()
       WHERE workspace_id = $1 AND id = $2`,
      [id, JSON.stringify(mapping), JSON.stringify(result)],
    );
  }

  /** A commit that failed half-way goes back to READY (committing the same file again only updates). */
  async releaseCommit(id: string): Promise<void> {
    await this.query(
      `UPDATE catalog_imports SET status = 'READY', updated_at = now() WHERE workspace_id = $1 AND id = $2 AND status = 'COMMITTING'`,
      [id],
    );
  }
}
