import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from 'src/core/config/app-config';
import { DatabaseRuntime } from 'src/core/database/database-runtime';
import { runMigrationsLocked } from 'src/core/database/data-source.factory';
// Loading the application's modules registers every entity (DatabaseModule.forEntities), for `generate`.
import 'src/app.module';

const USAGE = 'Usage: npm run migration:run | migration:revert | migration:generate -- <Name>';

/** `npm run migration:run|revert|generate` against DATABASE_URL or the embedded database of DATA_DIR. */
async function main(command: string | undefined, name: string | undefined): Promise<void> {
  // eslint-disable-next-line no-restricted-properties
  const config = loadConfig({ ...process.env, APP_ROLE: 'cli', MIGRATIONS_RUN: 'false' });
  // On the embedded engine a running service holds DATA_DIR: this refuses (DataDirLockedError) until it stops.
  const runtime = await DatabaseRuntime.open(config);
  try {
    const dataSource = runtime.dataSource;
    if (command === 'run') {
      const applied = await runMigrationsLocked(dataSource);
      process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'No pending migrations\n');
    } else if (command === 'revert') {
      await dataSource.undoLastMigration({ transaction: 'each' });
      process.stdout.write('Reverted the newest migration\n');
    } else if (command === 'generate') {
      if (!name || !/^[A-Z][A-Za-z0-9]+$/.test(name))
        throw new Error('generate needs a PascalCase name, e.g. AddTicketTags');
      const sql = await dataSource.driver.createSchemaBuilder().log();
      if (sql.upQueries.length === 0) {
        process.stdout.write('Entities and schema agree: nothing to generate\n');
        return;
      }
      const timestamp = Date.now();
      const body = (queries: { query: string }[]) =>
        queries.map((q) => `    await q.query(${JSON.stringify(q.query)});`).join('\n');
      const file = join(process.cwd(), 'migrations', `${timestamp}-${name}.ts`);
      writeFileSync(
        file,
        `import type { MigrationInterface, QueryRunner } from 'typeorm';\n\n` +
          `/** Generated from the entities: review by hand (indexes, composite keys) before committing, and add it to migrations/index.ts. */\n` +
          `export class ${name}${timestamp} implements MigrationInterface {\n  name = '${name}${timestamp}';\n\n` +
          `  async up(q: QueryRunner): Promise<void> {\n${body(sql.upQueries)}\n  }\n\n` +
          `  async down(q: QueryRunner): Promise<void> {\n${body([...sql.downQueries].reverse())}\n  }\n}\n`,
      );
      process.stdout.write(`Wrote ${file}: review it, then add it to migrations/index.ts\n`);
    } else {
      throw new Error(USAGE);
    }
  } finally {
    await runtime.close();
  }
}

main(process.argv[2], process.argv[3]).catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
