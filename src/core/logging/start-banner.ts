import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AppConfig } from 'src/core/config/app-config';

/**
 * The human block printed once the service listens: where it is, where the docs are, how to log
 * in and how to send a first message. Plain text on purpose (after the JSON or pretty logs).
 */
export function startBanner(config: AppConfig, engine: string, jobs: string, listenPort: number): string {
  const base = config.publicBaseUrl.startsWith('http://localhost:')
    ? `http://localhost:${listenPort}`
    : config.publicBaseUrl;
  const passwordFile = join(config.dataDir, 'initial-admin-password');
  const password = existsSync(passwordFile)
    ? `in ${passwordFile}  (cat it; change it with PUT /auth/password)`
    : config.bootstrap.adminPassword
      ? 'the value of BOOTSTRAP_ADMIN_PASSWORD'
      : `already set (reset it: npm run cli -- user:password --email ${config.bootstrap.adminEmail})`;
  const database = engine === 'embedded' ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)';
  const lines = [
    '',
    '  Support Inbox Service is running',
    '',
    `  API            ${base}`,
    `  API docs       ${base}/docs   (OpenAPI: ${base}/docs-json)`,
    `  Admin login    ${config.bootstrap.adminEmail}`,
    `  Password       ${password}`,
    `  Database       ${database}`,
    `  Jobs           ${jobs === 'redis' ? 'BullMQ on Redis (REDIS_URL)' : 'in-process (set REDIS_URL for BullMQ)'}`,
    '',
    '  First message: README.md "Quick start" — log in, POST /channels/connect {type: CUSTOM},',
    '  then POST the signed message to the inboundUrl it returns; it lands in GET /conversations.',
    '  Demo data: npm run cli -- demo:seed     Stop: Ctrl+C',
    '',
  ];
  return `${lines.join('\n')}\n`;
}
