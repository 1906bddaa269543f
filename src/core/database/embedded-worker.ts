import { parentPort, workerData } from 'node:worker_threads';
import { type EmbeddedEngineServer, serveEmbeddedEngine } from './embedded-server';

/**
 * The embedded engine's thread (started by EmbeddedPostgres in the service and the CLI): opens PGlite
 * and its wire server, answers `{type: 'ready', port}` or `{type: 'failed', message}`, and on
 * `{type: 'stop'}` closes both (PGlite's shutdown checkpoint) and ends the thread.
 */
interface EngineWorkerData {
  readonly pgdata: string;
  readonly credential: string;
}

function isWorkerData(value: unknown): value is EngineWorkerData {
  return (
    typeof value === 'object' &&
    value !== null &&
    'pgdata' in value &&
    typeof value.pgdata === 'string' &&
    'credential' in value &&
    typeof value.credential === 'string'
  );
}

async function run(): Promise<void> {
  const port = parentPort;
  if (!port || !isWorkerData(workerData)) throw new Error('embedded-worker.js runs as a worker thread only');
  let engine: EmbeddedEngineServer;
  try {
    engine = await serveEmbeddedEngine(workerData.pgdata, workerData.credential);
  } catch (error) {
    port.postMessage({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
    return;
  }
  port.on('message', (message: unknown) => {
    if (typeof message !== 'object' || message === null || !('type' in message) || message.type !== 'stop') return;
    void engine.close().finally(() => {
      port.postMessage({ type: 'stopped' });
      port.close();
    });
  });
  port.postMessage({ type: 'ready', port: engine.port });
}

void run();
