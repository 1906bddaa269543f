import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { AppConfig } from 'src/core/config/app-config';
import { MIGRATIONS } from '../../../migrations';
import { createDataSource, runMigrationsLocked } from './data-source.factory';
import { type EntityClass, registeredEntities } from './entity-registry';
import { EMBEDDED_POOL_SIZE, EmbeddedPostgres } from './embedded-postgres';
import { PreparingClient } from './prepared-statements';
import { prioritisePool } from './session-priority';

/**
 * Owns the database for the life of the process: starts the embedded server when DATABASE_URL is
 * unset, opens the DataSource, applies migrations, and closes both in the right order.
 */
export class DatabaseRuntime {
  private readonly logger = new Logger('Database');

  private constructor(
    readonly dataSource: DataSource,
    readonly engine: 'postgres' | 'embedded',
    private readonly embedded: EmbeddedPostgres | null,
    /**
     * PostgreSQL only (ACK_POOL_SIZE > 0): the webhook acknowledgements' own small pool (issue 16).
     * Their group-commit INSERTs run here, so neither a busy main pool (long requests, exports, the
     * pipeline in the `all` role) nor its queue delays an ack. Connections open on first use.
     */
    readonly ackPool: Pool | null,
    /**
     * PostgreSQL only: statements that commit apart from the caller's open transaction (routing's seat
     * claims, issue 16 item 3), each its own short transaction. `synchronous_commit` is off on these
     * connections: such a commit only matters to the transaction that asked for it, whose own commit
     * comes later in the WAL and flushes it too.
     */
    readonly apartPool: Pool | null,
  ) {}

  /** `entities`: default, those the loaded modules registered (DatabaseModule.forEntities). */
  static async open(config: AppConfig, options: { entities?: readonly EntityClass[] } = {}): Promise<DatabaseRuntime> {
    let url = config.db.url;
    let embedded: EmbeddedPostgres | null = null;
    let poolSize = config.db.poolSize;
    if (!url) {
      // Never attaches to another process's embedded database (issue 9 item 8): a running service
      // refuses other database clients; the CLI reaches it through its admin socket instead.
      embedded = await EmbeddedPostgres.start(config.dataDir);
      url = embedded.url;
      poolSize = Math.min(poolSize, EMBEDDED_POOL_SIZE);
    }
    const dataSource = createDataSource({
      url,
      poolSize,
      embedded: !config.db.url,
      entities: options.entities ? [...options.entities] : registeredEntities(),
      migrations: MIGRATIONS,
    });
    try {
      await dataSource.initialize();
      // One session on the embedded engine: webhook acks are served before queued pipeline work.
      if (!config.db.url) prioritisePool((dataSource.driver as unknown as { master: unknown }).master);
      const runtime = new DatabaseRuntime(
        dataSource,
        config.db.url ? 'postgres' : 'embedded',
        embedded,
        config.db.url && config.db.ackPoolSize > 0 ? ackPool(url, config.db.ackPoolSize) : null,
        config.db.url ? apartPool(url) : null,
      );
      const apart = embedded?.initialisedApart;
      if (apart?.failure) {
        runtime.logger.warn(
          `Initialising the embedded database in a separate process failed (${apart.failure}); ` +
            `this process initialised it instead (it keeps that memory until it restarts)`,
        );
      } else if (apart) {
        runtime.logger.log(
          `Initialised the embedded database in ${config.dataDir} in a separate process (pid ${apart.pid})` +
            (apart.applied.length ? `; applied migrations: ${apart.applied.join(', ')}` : ''),
        );
      }
      if (config.db.migrationsRun) {
        const applied = await runMigrationsLocked(dataSource);
        if (applied.length) runtime.logger.log(`Applied migrations: ${applied.join(', ')}`);
      }
      return runtime;
    } catch (error) {
      if (dataSource.isInitialized) await dataSource.destroy();
      await embedded?.stop();
      throw error;
    }
  }

  /** Where this process's embedded server listens (null on PostgreSQL); it accepts this process's pool only. */
  get embeddedAddress(): { host: string; port: number } | null {
    return this.embedded?.address ?? null;
  }

  async close(): Promise<void> {
    await this.ackPool?.end();
    await this.apartPool?.end();
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.embedded?.stop();
  }
}

/** Connections of the apart pool: its statements are short and few at a time (one per new conversation). */
const APART_POOL_SIZE = 4;

function apartPool(url: string): Pool {
  const pool = new Pool({
    connectionString: url,
    max: APART_POOL_SIZE,
    connectionTimeoutMillis: 15_000,
    options: '-c synchronous_commit=off',
  });
  handleConnectionErrors(pool, 'Apart pool');
  return pool;
}

function ackPool(url: string, size: number): Pool {
  // PreparingClient: the group-commit INSERTs go out as named prepared statements (foregroundRows).
  const pool = new Pool({ connectionString: url, max: size, connectionTimeoutMillis: 15_000, Client: PreparingClient });
  handleConnectionErrors(pool, 'Ack pool');
  return pool;
}

/**
 * A connection that breaks (server restart, `57P01`) must not crash the process. The pool handles
 * an idle connection's error (it drops it); a connection checked out between two statements emits
 * its error on the client, which has no listener of its own: one is added to every connection, and
 * the next statement on it fails as usual (chaos scenario 4).
 */
function handleConnectionErrors(pool: Pool, label: string): void {
  const logger = new Logger('Database');
  const lost = (error: Error) => logger.warn(`${label} connection lost: ${error.message}`);
  pool.on('error', lost);
  pool.on('connect', (client) => client.on('error', lost));
}
