import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { Ticker } from 'src/core/queue/ticker.service';
import { DatabaseRuntime } from './database-runtime';
import { sessionPriority } from './session-priority';
import { type RawQueryable, queryRows } from './sql';

/**
 * PostgreSQL's autovacuum defaults (postgresql.conf): a table is analysed once the rows changed since
 * its last ANALYZE exceed 50 + 10 % of its rows, vacuumed once its dead rows exceed 50 + 20 %, or its
 * rows inserted since the last VACUUM exceed 1,000 + 20 % (PostgreSQL 13+: keeps the visibility map
 * current for index-only scans).
 */
export const AUTOVACUUM = {
  analyzeThreshold: 50,
  analyzeScaleFactor: 0.1,
  vacuumThreshold: 50,
  vacuumScaleFactor: 0.2,
  vacuumInsertThreshold: 1000,
  vacuumInsertScaleFactor: 0.2,
} as const;

/** Tables looked after per tick: each statement holds the embedded engine's one session (PostgreSQL: one connection). */
const MAX_TABLES_PER_TICK = 4;
/** How long a maintenance statement waits for webhook acks in flight before it takes the session anyway. */
const YIELD_MAX_WAIT_MS = 500;

export interface MaintainedTable {
  readonly table: string;
  readonly vacuum: boolean;
  readonly analyze: boolean;
}

/** The PostgreSQL advisory lock one process holds while it maintains tables (several workers, one pass). */
const POSTGRES_LOCK = `hashtextextended('sis:table-maintenance', 0)`;

/**
 * The service's own autovacuum, where nothing else runs one:
 * - the embedded engine (PGlite runs PostgreSQL without its background workers, so nothing else ever
 *   runs VACUUM or ANALYZE there). Without it the planner keeps the statistics of the tables' first
 *   minutes — empty — and dead rows from every status update pile up: with 7,000 processed webhook
 *   events the embedded pipeline ran at less than half its rate until an ANALYZE
 *   (docs/performance.md, "Session 26: embedded maintenance");
 * - a PostgreSQL server whose `autovacuum` is off (read at every tick): the same two effects, worse
 *   with a backlog — the inbound claim's plan read every dead entry of the pending-events index
 *   (docs/performance.md, "Session 28"). One process at a time (an advisory lock on its own
 *   connection); with autovacuum on it does nothing.
 *
 * Every EMBEDDED_MAINTENANCE_TICK_MS (default 30 s; PostgreSQL's own naptime is 60 s), in the roles
 * that run timers (`all`, `worker`): the tables whose changes passed autovacuum's default thresholds
 * get `VACUUM (ANALYZE)` or `ANALYZE`, at most four per tick, most changed first. On the embedded
 * engine each statement is background work on the session (webhook acks first).
 */
@Injectable()
export class TableMaintenanceService implements OnApplicationBootstrap {
  private readonly logger = new Logger('TableMaintenance');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly runtime: DatabaseRuntime,
    private readonly ticker: Ticker,
  ) {}

  onApplicationBootstrap(): void {
    this.ticker.every('table.maintenance', this.config.ticks.embeddedMaintenanceMs, () =>
      this.runOnce().then(() => undefined),
    );
  }

  /** One pass: the tables due, each vacuumed and/or analysed. What was done (tests, operators). */
  runOnce(): Promise<MaintainedTable[]> {
    return this.runtime.engine === 'embedded' ? this.runEmbedded() : this.runOnPostgres();
  }

  private runEmbedded(): Promise<MaintainedTable[]> {
    return sessionPriority.background(async () => {
      const db = this.runtime.dataSource.manager;
      await sessionPriority.yieldToForeground(YIELD_MAX_WAIT_MS);
      const due = await this.dueTables(db);
      for (const table of due) {
        await sessionPriority.yieldToForeground(YIELD_MAX_WAIT_MS);
        await this.maintain(db, table);
      }
      return due;
    });
  }

  private async runOnPostgres(): Promise<MaintainedTable[]> {
    const runner = this.runtime.dataSource.createQueryRunner();
    await runner.connect();
    try {
      const [{ off }] = await queryRows<{ off: boolean }>(
        runner,
        `SELECT current_setting('autovacuum') = 'off' AS off`,
        [],
      );
      if (!off) return [];
      const [{ locked }] = await queryRows<{ locked: boolean }>(
        runner,
        `SELECT pg_try_advisory_lock(${POSTGRES_LOCK}) AS locked`,
        [],
      );
      if (!locked) return [];
      try {
        const due = await this.dueTables(runner);
        for (const table of due) await this.maintain(runner, table);
        return due;
      } finally {
        await runner.query(`SELECT pg_advisory_unlock(${POSTGRES_LOCK})`);
      }
    } finally {
      await runner.release();
    }
  }

  private async maintain(db: RawQueryable, table: MaintainedTable): Promise<void> {
    const started = performance.now();
    // `table` is the catalogue's own quoted name (regclass output), not input.
    await queryRows(db, table.vacuum ? `VACUUM (ANALYZE) ${table.table}` : `ANALYZE ${table.table}`, []);
    this.logger.debug(
      { table: table.table, vacuum: table.vacuum, ms: Math.round(performance.now() - started) },
      'Table maintained',
    );
  }

  /**
   * The statistics counters first: a session reports its table changes at most once a second
   * (pg_stat_force_next_flush makes the next report happen, so this read sees them all).
   */
  private async dueTables(db: RawQueryable): Promise<MaintainedTable[]> {
    await queryRows(db, `SELECT pg_stat_force_next_flush()`, []);
    const a = AUTOVACUUM;
    return queryRows<MaintainedTable>(
      db,
      `WITH t AS (
         SELECT c.oid::regclass::text AS "table",
                s.n_dead_tup > $1 + $2 * greatest(c.reltuples, 0)
                  OR s.n_ins_since_vacuum > $3 + $4 * greatest(c.reltuples, 0) AS vacuum,
                s.n_mod_since_analyze > $5 + $6 * greatest(c.reltuples, 0) AS "analyze",
                s.n_dead_tup + s.n_mod_since_analyze AS changes
           FROM pg_stat_user_tables s
           JOIN pg_class c ON c.oid = s.relid
          WHERE s.schemaname = current_schema())
       SELECT "table", vacuum, "analyze" FROM t WHERE vacuum OR "analyze" ORDER BY changes DESC LIMIT $7`,
      [
        a.vacuumThreshold,
        a.vacuumScaleFactor,
        a.vacuumInsertThreshold,
        a.vacuumInsertScaleFactor,
        a.analyzeThreshold,
        a.analyzeScaleFactor,
        MAX_TABLES_PER_TICK,
      ],
    );
  }
}
