import 'reflect-metadata';
import { ConfigError, loadConfig } from './core/config/app-config';
import { createApp } from './create-app';
import { Logger } from 'nestjs-pino';
import { existsSync, writeFileSync } from 'node:fs';
import { DatabaseRuntime } from './core/database/database-runtime';
import { startBanner } from './core/logging/start-banner';
import { JobQueueService } from './core/queue/job-queue.service';
import { WORKER_HEARTBEAT_FILE, WORKER_HEARTBEAT_INTERVAL_MS } from './core/health/heartbeat';

async function main(): Promise<void> {
  // A `.env` file in the working directory is read first; variables already set win.
  if (existsSync('.env')) process.loadEnvFile('.env');
  let config;
  try {
    // The one place the environment is read.
    // eslint-disable-next-line no-restricted-properties
    const env = process.env;
    config = loadConfig({ ...env, LOG_FORMAT: env.LOG_FORMAT || (process.stdout.isTTY ? 'pretty' : 'json') });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const started = Date.now();
  const app = await createApp(config);
  if (config.role === 'worker') {
    await app.init();
    // No HTTP port: the container healthcheck reads this heartbeat (src/healthcheck.ts).
    const beat = (): void => writeFileSync(WORKER_HEARTBEAT_FILE, String(Date.now()));
    beat();
    setInterval(beat, WORKER_HEARTBEAT_INTERVAL_MS).unref();
  } else {
    await app.listen(config.port);
  }
  const address = config.role === 'worker' ? null : app.getHttpServer().address();
  const port = address && typeof address === 'object' ? address.port : config.port;
  app
    .get(Logger)
    .log(`Support Inbox Service ready (role ${config.role}, port ${port}) in ${Date.now() - started} ms`, 'Main');
  if (config.role !== 'worker') {
    const engine = app.get(DatabaseRuntime).engine;
    const jobs = app.get(JobQueueService).redisConfigured ? 'redis' : 'inline';
    // Give the asynchronous log transport a moment so the block comes after the logs.
    setTimeout(() => process.stdout.write(startBanner(config, engine, jobs, port)), 50).unref();
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
