import { randomBytes } from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { createDataSource, runMigrationsLocked } from 'src/core/database/data-source.factory';
import { EmbeddedPostgres } from 'src/core/database/embedded-postgres';
import { MIGRATIONS } from '../../migrations';
import { treeHash } from './tree-hash';

/** Identifies the schema: templates are rebuilt whenever a migration file changes. */
const migrationsHash = (): string => treeHash(['migrations']);

async function migrate(url: string, embedded: boolean): Promise<void> {
  // The embedded server serves one connection at a time safely (its pool is one connection).
  const dataSource = createDataSource({
    url,
    poolSize: embedded ? 1 : 2,
    embedded,
    entities: [],
    migrations: MIGRATIONS,
  });
  await dataSource.initialize();
  try {
    await runMigrationsLocked(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** A migrated PGlite data directory, built once per schema and copied for each test file (~0.1 s). */
export async function embeddedTemplateDir(): Promise<string> {
  const root = join(tmpdir(), 'sis-test-templates');
  const dir = join(root, `pglite-${migrationsHash()}`);
  if (existsSync(join(dir, 'READY'))) return dir;
  mkdirSync(root, { recursive: true });
  const lock = `${dir}.lock`;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch {
      if (existsSync(join(dir, 'READY'))) return dir;
      // A builder that died leaves a stale lock: take over after a minute.
      if (Date.now() - statSync(lock, { throwIfNoEntry: false })!.mtimeMs > 60_000) rmSync(lock, { force: true });
      await sleep(200);
    }
  }
  try {
    if (existsSync(join(dir, 'READY'))) return dir;
    const building = `${dir}.building-${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    const server = await EmbeddedPostgres.start(building);
    try {
      await migrate(server.url, true);
    } finally {
      await server.stop();
    }
    closeSync(openSync(join(building, 'READY'), 'w'));
    rmSync(dir, { recursive: true, force: true });
    renameSync(building, dir);
    return dir;
  } finally {
    rmSync(lock, { force: true });
  }
}

export function copyEmbeddedTemplate(templateDir: string, dataDir: string): void {
  mkdirSync(dataDir, { recursive: true });
  cpSync(join(templateDir, 'pgdata'), join(dataDir, 'pgdata'), { recursive: true });
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Real PostgreSQL: a migrated template database per schema, and `CREATE DATABASE … TEMPLATE` per test file. */
export async function createDatabaseFromTemplate(
  adminUrl: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const template = `sis_tpl_${migrationsHash()}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query('SELECT pg_advisory_lock(727431100)');
    try {
      const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [template]);
      if (exists.rowCount === 0) {
        await admin.query(`CREATE DATABASE ${template}`);
        try {
          await migrate(withDatabase(adminUrl, template), false);
        } catch (error) {
          await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
          throw error;
        }
      }
      const name = `sis_t_${randomBytes(6).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      return {
        url: withDatabase(adminUrl, name),
        drop: async () => {
          const client = new Client({ connectionString: adminUrl });
          await client.connect();
          try {
            await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          } finally {
            await client.end();
          }
        },
      };
    } finally {
      await admin.query('SELECT pg_advisory_unlock(727431100)');
    }
  } finally {
    await admin.end();
  }
}
