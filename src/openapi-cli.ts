import 'reflect-metadata';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from './core/config/app-config';
import { buildOpenApiDocument } from './core/http/openapi';
import { createApp } from './create-app';

/**
 * `npm run openapi -- [file]`: writes the OpenAPI document (what /docs-json serves) to a file
 * (default openapi.json), built from a throw-away embedded database so no service must run.
 * CI lints it with `redocly lint`.
 */
async function main(file: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sis-openapi-'));
  try {
    // eslint-disable-next-line no-restricted-properties
    const outer = process.env;
    const config = loadConfig({
      NODE_ENV: 'development',
      DATA_DIR: dataDir,
      APP_ROLE: 'api',
      LOG_LEVEL: 'error',
      PUBLIC_BASE_URL: outer.PUBLIC_BASE_URL || 'http://localhost:4000',
      BOOTSTRAP_ADMIN_PASSWORD: 'not-used-0123',
    });
    const app = await createApp(config);
    try {
      writeFileSync(file, `${JSON.stringify(buildOpenApiDocument(app, config), null, 2)}\n`);
    } finally {
      await app.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const target = process.argv[2] ?? 'openapi.json';
main(target).then(
  () => process.stdout.write(`OpenAPI document written to ${target}\n`),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
