import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

async function healthyAfter(dataDir: string, port: number): Promise<number> {
  const started = Date.now();
  const child = spawn(process.execPath, [join(__dirname, '..', 'src', 'main.js')], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, PORT: String(port), BOOTSTRAP_ADMIN_PASSWORD: 'bench-password', LOG_LEVEL: 'warn' },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/health`);
        if (res.ok) return Date.now() - started;
      } catch {
        // not listening yet
      }
      if (Date.now() - started > 60_000) throw new Error('service did not become healthy within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

/** Cold start to a healthy /health on the embedded database: first start (initdb + migrations) and a restart. */
export async function coldStart(): Promise<Record<string, number>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sis-bench-start-'));
  try {
    const first = await healthyAfter(dataDir, 4791);
    const restart = await healthyAfter(dataDir, 4792);
    return { 'cold start, empty data dir (ms)': first, 'restart, existing data dir (ms)': restart };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
