import { Inject, Injectable, Logger } from '@nestjs/common';
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import type { PoolClient } from 'pg';
import QueryStream from 'pg-query-stream';
import { DataSource } from 'typeorm';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { AppException } from 'src/core/errors/app.exception';
import { ErrorCode } from 'src/core/errors/error-codes';
import { DatabaseRuntime } from 'src/core/database/database-runtime';
import { TransactionHost } from 'src/core/database/transaction-host';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import type { ReportSpec } from './report-definitions';
import { type ReportFilters, type ReportPageRequest, buildReportQuery } from './report-query.util';

export type ReportRow = Record<string, string | number | boolean | null>;

/** Rows fetched per FETCH by the embedded engine's export (each FETCH holds PGlite's one session). */
export const EXPORT_BATCH_ROWS = 1000;
/**
 * Rows per portal fetch on PostgreSQL (and the stream's buffer). Measured on the 1,000,000-row
 * messages export (PostgreSQL 15, load average ~27 on 2 cores): 1,000 → 18,115 rows/s, RSS +9 MB;
 * 2,500 → 39,473 rows/s, +4 MB; 5,000 → 26,778 rows/s, +76 MB (more rows survive V8's young
 * generation and it grows to its maximum).
 */
export const PORTAL_BATCH_ROWS = 2500;

/**
 * Report rows, read only, under the caller's workspace (`workspace_id = $1` from the tenant
 * context). Pages run on the ambient connection; the export streams from a database cursor:
 *
 * - PostgreSQL: `pg-query-stream` (a portal read `PORTAL_BATCH_ROWS` at a time, rows as arrays) on a dedicated pool
 *   connection, held for the export and released when the stream ends, fails or the client goes away.
 *   The stream pauses while the HTTP response is full (backpressure), so memory stays flat.
 * - Embedded engine: the pool has ONE connection onto PGlite's one session, so holding it for the
 *   whole export would stall every other request. The export declares a `WITH HOLD` cursor
 *   (materialised by PGlite in its own storage, not in Node) and fetches it `EXPORT_BATCH_ROWS` at a time,
 *   each FETCH a short query on the shared connection: other requests interleave between batches.
 *   The cursor is closed at the end, on error and when the client disconnects.
 */
@Injectable()
export class ReportsRepository {
  private readonly logger = new Logger('ReportsExport');
  /** Exports holding a pool connection now (PostgreSQL); at most half the pool, so requests keep flowing. */
  private heldConnections = 0;
  private readonly maxHeldConnections: number;

  constructor(
    private readonly tx: TransactionHost,
    private readonly dataSource: DataSource,
    private readonly runtime: DatabaseRuntime,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.maxHeldConnections = Math.max(1, Math.floor(config.db.poolSize / 2));
  }

  private get workspaceId(): string {
    return getTenantContext().workspaceId;
  }

  async page(spec: ReportSpec, filters: ReportFilters, page: ReportPageRequest): Promise<ReportRow[]> {
    const { sql, params } = buildReportQuery(spec, this.workspaceId, filters, page);
    return this.tx.manager.query(sql, params);
  }

  /**
   * Every row of the report as an object-mode stream (see the class comment for how, per engine):
   * arrays in select order on PostgreSQL, objects on the embedded engine; the keyset columns last.
   */
  async stream(spec: ReportSpec, filters: ReportFilters): Promise<Readable> {
    const { sql, params } = buildReportQuery(spec, this.workspaceId, filters, null, `report-export:${spec.key}`);
    return this.runtime.engine === 'embedded' ? this.heldCursorStream(sql, params) : this.portalStream(sql, params);
  }

  private async portalStream(sql: string, params: unknown[]): Promise<Readable> {
    if (this.heldConnections >= this.maxHeldConnections) {
      throw new AppException(ErrorCode.RateLimited, 'Too many exports are running; try again shortly', [], {
        'Retry-After': '5',
      });
    }
    this.heldConnections++;
    const runner = this.dataSource.createQueryRunner();
    let client: PoolClient;
    try {
      client = await runner.connect();
    } catch (error) {
      this.heldConnections--;
      throw error;
    }
    const stream = client.query(
      // Rows as arrays in column order: no per-row object with named keys to build.
      new QueryStream(sql, params, {
        batchSize: PORTAL_BATCH_ROWS,
        highWaterMark: PORTAL_BATCH_ROWS,
        rowMode: 'array',
      }),
    );
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.heldConnections--;
      void runner.release();
    };
    stream.once('end', release);
    stream.once('close', release);
    stream.once('error', release);
    return stream;
  }

  private heldCursorStream(sql: string, params: unknown[]): Readable {
    const name = `report_export_${randomBytes(8).toString('hex')}`;
    const ds = this.dataSource;
    const logger = this.logger;
    let state: 'new' | 'open' | 'closed' = 'new';
    const close = async (): Promise<void> => {
      if (state !== 'open') {
        state = 'closed';
        return;
      }
      state = 'closed';
      try {
        await ds.query(`CLOSE ${name}`);
      } catch (error) {
        logger.warn({ err: error, cursor: name }, 'Closing the export cursor failed');
      }
    };
    return new Readable({
      objectMode: true,
      highWaterMark: EXPORT_BATCH_ROWS,
      read(): void {
        void (async () => {
          try {
            if (state === 'closed') return;
            if (state === 'new') {
              state = 'open';
              await ds.query(`DECLARE ${name} NO SCROLL CURSOR WITH HOLD FOR ${sql}`, params);
            }
            const rows: ReportRow[] = await ds.query(`FETCH ${EXPORT_BATCH_ROWS} FROM ${name}`);
            const last = rows.length < EXPORT_BATCH_ROWS;
            if (last) await close();
            for (const row of rows) this.push(row);
            if (last) this.push(null);
          } catch (error) {
            await close();
            this.destroy(error instanceof Error ? error : new Error(String(error)));
          }
        })();
      },
      destroy(error, callback): void {
        void close().then(() => callback(error));
      },
    });
  }
}
