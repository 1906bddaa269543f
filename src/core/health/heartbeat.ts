import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The file a worker touches every few seconds (it has no HTTP port to probe); src/healthcheck.ts reads it. */
export const WORKER_HEARTBEAT_FILE = join(tmpdir(), 'sis-worker-heartbeat');
export const WORKER_HEARTBEAT_INTERVAL_MS = 10_000;
