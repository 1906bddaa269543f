import { DataSource, type DataSourceOptions, MigrationExecutor, type MixedList } from 'typeorm';
import { PreparingClient } from './prepared-statements';
import { SnakeNamingStrategy } from './snake-naming.strategy';
import { StatementCountingLogger } from './statement-counting.logger';

export interface DataSourceInput {
  readonly url: string;
  readonly poolSize: number;
  readonly embedded: boolean;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  readonly entities: MixedList<Function>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  readonly migrations: MixedList<Function>;
}

/** One code path for the embedded and the real database: the `postgres` driver, the same entities and migrations. */
export function buildDataSourceOptions(input: DataSourceInput): DataSourceOptions {
  return {
    type: 'postgres',
    url: input.url,
    entities: input.entities,
    migrations: input.migrations,
    migrationsTableName: 'migrations',
    namingStrategy: new SnakeNamingStrategy(),
    logger: new StatementCountingLogger(),
    synchronize: false,
    migrationsRun: false,
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    poolSize: input.poolSize,
    extra: {
      max: input.poolSize,
      // A query waiting behind a stuck transaction (embedded: one connection) becomes an error, not a hang.
      connectionTimeoutMillis: input.embedded ? 60_000 : 15_000,
      ...(input.embedded ? { query_timeout: 120_000 } : {}),
      // Statements sent in a prepared scope are named (core/database/prepared-statements); on the
      // embedded engine each connection's names live apart in the one session (embedded-server.ts).
      Client: PreparingClient,
    },
  };
}

export function createDataSource(input: DataSourceInput): DataSource {
  return new DataSource(buildDataSourceOptions(input));
}

const MIGRATION_LOCK_KEY = 727_431_001;

/**
 * Whether every migration this code knows is recorded in the migrations table: two short queries
 * (the table's existence, then the applied names), compared by name as TypeORM's executor compares
 * them. The executor's own check reads `information_schema.tables` and costs the first catalogue
 * look-ups of the session — on the embedded engine ~0.1 s of every start and every CLI command
 * (issue 16 item 6).
 */
export async function schemaIsCurrent(dataSource: DataSource): Promise<boolean> {
  const [table] = await dataSource.query<{ present: boolean }[]>(
    `SELECT to_regclass('migrations') IS NOT NULL AS present`,
  );
  if (!table?.present) return false;
  const rows = await dataSource.query<{ name: string }[]>(`SELECT name FROM migrations`);
  const applied = new Set(rows.map((row) => row.name));
  return dataSource.migrations.every((migration) => applied.has(migration.name ?? migration.constructor.name));
}

/**
 * Applies pending migrations under a PostgreSQL advisory lock, so several instances starting at once
 * apply them once. A current schema (the usual restart) is recognised without the lock or the executor.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  if (await schemaIsCurrent(dataSource)) return [];
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      // Same connection as the lock: on the embedded engine the pool has exactly one.
      const executor = new MigrationExecutor(dataSource, runner);
      executor.transaction = 'each';
      const applied = await executor.executePendingMigrations();
      return applied.map((m) => m.name);
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    await runner.release();
  }
}
