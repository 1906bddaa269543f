import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { CatalogImportEntity } from './catalog-import.entity';
import type { ImportMapping } from './csv/header-guess.util';

/**
 * The stored upload's pieces: at most 64 kB each, one statement per piece (a 3 MB parameter or result
 * costs the database several copies of it at once, which on the embedded engine stay in PGlite's
 * WebAssembly memory for good: docs/performance.md, "Session 24: embedded CSV memory").
 */
export const IMPORT_CHUNK_BYTES = 64 * 1024;

/** A session claimed for commit: what the commit needs (its file read apart, `readContent`). */
export interface ClaimedImport {
  readonly id: string;
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

  /**
   * Stores a session's file (gzip) as pieces of at most IMPORT_CHUNK_BYTES, one statement each (the
   * compressor's smaller outputs joined up to that size).
   */
  async insertContent(importId: string, pieces: readonly Buffer[]): Promise<void> {
    let seq = 0;
    let group: Buffer[] = [];
    let size = 0;
    const store = async (): Promise<void> => {
      if (size === 0) return;
      const bytes = group.length === 1 ? group[0]! : Buffer.concat(group, size);
      group = [];
      size = 0;
      await this.query(
        `INSERT INTO catalog_import_chunks (workspace_id, import_id, seq, bytes) VALUES ($1, $2, $3, $4)`,
        [importId, seq++, bytes],
      );
    };
    for (const piece of pieces) {
      for (let at = 0; at < piece.length; at += IMPORT_CHUNK_BYTES) {
        const part = piece.subarray(at, at + IMPORT_CHUNK_BYTES);
        if (size + part.length > IMPORT_CHUNK_BYTES) await store();
        group.push(part);
        size += part.length;
      }
    }
    await store();
  }

  /** A session's file (gzip), piece by piece in order, one statement per piece; empty once committed. */
  async readContent(importId: string): Promise<Buffer[]> {
    const pieces: Buffer[] = [];
    for (let seq = 0; ; seq++) {
      const rows = await this.queryRows<{ bytes: Buffer }>(
        `SELECT bytes FROM catalog_import_chunks WHERE workspace_id = $1 AND import_id = $2 AND seq = $3`,
        [importId, seq],
      );
      if (!rows[0]) return pieces;
      pieces.push(rows[0].bytes);
    }
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
      delimiter: string;
      headers: string[];
      mapping: ImportMapping;
      total_rows: number;
    }>(
      `UPDATE catalog_imports SET status = 'COMMITTING', expires_at = GREATEST(expires_at, $3), updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND status = 'READY' AND expires_at > now()
       RETURNING id, delimiter, headers, mapping, total_rows`,
      [id, expiresAt],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      delimiter: row.delimiter,
      headers: row.headers,
      mapping: row.mapping,
      totalRows: row.total_rows,
    };
  }

  /** COMMITTED: the file is erased, the result kept until the session expires. */
  async finishCommit(id: string, mapping: ImportMapping, result: Record<string, unknown>): Promise<void> {
    await this.query(
      `WITH erased AS (DELETE FROM catalog_import_chunks WHERE workspace_id = $1 AND import_id = $2)
       UPDATE catalog_imports SET status = 'COMMITTED', mapping = $3::jsonb, result = $4::jsonb, updated_at = now()
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
