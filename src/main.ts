import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from './core/config/app-config';
import { EmbeddedPostgres } from './core/database/embedded-postgres';
import { applyLeanHeapSettings, leanHeapFlagsFor } from './core/runtime/heap-settings';
import { threadpoolSizeToSet } from './core/runtime/threadpool-settings';

/*
 * Only the configuration is loaded before main() runs: on the embedded engine, PGlite's WebAssembly
 * starts compiling on background threads first, then the application's modules load (serve.ts) while
 * it compiles (issue 16 item 6).
 */
async function main(): Promise<void> {
  // A `.env` file in the working directory is read first; variables already set win.
  if (existsSync('.env')) process.loadEnvFile('.env');
  let config;
  // The one place the environment is read.
  // eslint-disable-next-line no-restricted-properties
  const env = process.env;
  try {
    config = loadConfig({ ...env, LOG_FORMAT: env.LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json') });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  // Less old-generation growth (and on the embedded engine, where PGlite shares this process, a small
  // young generation): issue 16 item 5. Before the application's modules load, so their first objects
  // count too. On PostgreSQL in the roles serving the API only (they hold the CSV imports).
  applyLeanHeapSettings(process.execArgv, env.NODE_OPTIONS, leanHeapFlagsFor(!config.db.url, config.role));
  // One libuv pool thread on the embedded engine (one malloc arena instead of four), unless the
  // operator set it; read by libuv when the pool first starts, so before anything uses it.
  const poolSize = threadpoolSizeToSet(!config.db.url, env.UV_THREADPOOL_SIZE);
  if (poolSize) env.UV_THREADPOOL_SIZE = poolSize;
  if (!config.db.url) {
    // A first start (empty DATA_DIR) initialises the database in a child process meanwhile, so initdb's
    // and the migrations' memory is not this process's for its whole life (docs/decisions.md, session 23).
    EmbeddedPostgres.initialiseApart(config.dataDir, { migrate: config.db.migrationsRun });
    // The embedded engine's WebAssembly compiles while serve.ts loads (the engine then runs in this thread).
    EmbeddedPostgres.startEarly(config.dataDir, { ownThread: false });
  }
  const { serve } = await import('./serve.js');
  await serve(config);
}

void main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
