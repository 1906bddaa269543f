import 'reflect-metadata';
import { inspect } from 'node:util';
import { MIGRATIONS } from '../../../migrations';
import { createDataSource, runMigrationsLocked } from './data-source.factory';
import { EmbeddedPostgres } from './embedded-postgres';

/**
 * The embedded engine's first start, in a short-lived child process of the service
 * (EmbeddedPostgres.initialiseApart): `node embedded-initialiser.js DATA_DIR migrate|initdb`.
 * Creates the database (PGlite's initdb) and, with `migrate`, applies every migration, then exits so
 * the memory this took (PGlite's WebAssembly memory never shrinks) is not the service's. Answers one
 * JSON line on stdout, `{"applied": [names]}`; a failure goes to stderr with exit code 1.
 */
async function run(dataDir: string | undefined, mode: string | undefined): Promise<void> {
  if (!dataDir || (mode !== 'migrate' && mode !== 'initdb')) {
    throw new Error('Usage: node embedded-initialiser.js DATA_DIR migrate|initdb (started by the service)');
  }
  // The service that started this process went away (its IPC channel closed): stop, leaving no database.
  const orphaned = (): never => process.exit(1);
  process.once('disconnect', orphaned);
  let applied: string[] = [];
  await EmbeddedPostgres.initialise(dataDir, async (url) => {
    if (mode !== 'migrate') return;
    const dataSource = createDataSource({ url, poolSize: 1, embedded: true, entities: [], migrations: MIGRATIONS });
    await dataSource.initialize();
    try {
      applied = await runMigrationsLocked(dataSource);
    } finally {
      await dataSource.destroy();
    }
  });
  process.stdout.write(`${JSON.stringify({ applied })}\n`);
  // Closing the channel lets this process end.
  process.off('disconnect', orphaned);
  process.disconnect?.();
}

run(process.argv[2], process.argv[3]).catch((error: unknown) => {
  // PGlite's WebAssembly can throw non-Error values (Emscripten's ExitStatus): shown whole.
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : inspect(error)}\n`);
  process.exit(1);
});
