import { writeFileSync } from 'node:fs';
import { Logger } from 'nestjs-pino';
import type { AppConfig } from './core/config/app-config';
import { DatabaseRuntime } from './core/database/database-runtime';
import { WORKER_HEARTBEAT_FILE, WORKER_HEARTBEAT_INTERVAL_MS } from './core/health/heartbeat';
import { startBanner } from './core/logging/start-banner';
import { JobQueueService } from './core/queue/job-queue.service';
import { applyRolePriority } from './core/runtime/process-priority';
import { createApp } from './create-app';

/** Starts the service for a validated configuration (main.ts loads this module once the configuration is read). */
export async function serve(config: AppConfig): Promise<void> {
  const started = Date.now();
  // Before the application starts its threads and connections: they inherit the main thread's priority.
  const priority = applyRolePriority(config);
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
  if (priority)
    app
      .get(Logger)
      .log(
        `Worker CPU priority lowered to nice ${priority.nice} (WORKER_NICE) on ${priority.threads - priority.failed} of ${priority.threads} threads`,
        'Main',
      );
  if (config.role !== 'worker') {
    const engine = app.get(DatabaseRuntime).engine;
    const jobs = app.get(JobQueueService).redisConfigured ? 'redis' : 'inline';
    // Give the asynchronous log transport a moment so the block comes after the logs.
    setTimeout(() => process.stdout.write(startBanner(config, engine, jobs, port)), 50).unref();
  }
}
