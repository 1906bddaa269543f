import { statSync } from 'node:fs';
import { WORKER_HEARTBEAT_FILE, WORKER_HEARTBEAT_INTERVAL_MS } from './core/health/heartbeat';

/**
 * Container healthcheck (`node dist/src/healthcheck.js`, Dockerfile HEALTHCHECK): exit 0 when
 * healthy. api/all: GET /health/live on PORT answers 200. worker: the heartbeat file is younger
 * than three intervals (the event loop runs; its jobs and timers share that loop).
 */
async function main(): Promise<number> {
  // eslint-disable-next-line no-restricted-properties
  const env = process.env;
  if (env.APP_ROLE === 'worker') {
    const age = Date.now() - statSync(WORKER_HEARTBEAT_FILE).mtimeMs;
    return age < 3 * WORKER_HEARTBEAT_INTERVAL_MS ? 0 : 1;
  }
  const response = await fetch(`http://127.0.0.1:${env.PORT || 4000}/health/live`, {
    signal: AbortSignal.timeout(4_000),
  });
  return response.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`unhealthy: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
