import { afterAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ADMIN_PASSWORD = 'first-start-password-1';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}

interface Started {
  readonly child: ChildProcess;
  readonly base: string;
  readonly logs: () => string[];
}

/** `node dist/bundle/main.js` as `npm start` runs it, with no DATABASE_URL (the embedded engine). */
async function startCompiled(dataDir: string, encryptionKey: string): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/bundle/main.js'], {
    env: {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
      PORT: String(port),
      JWT_SECRET: 'first-start-jwt-secret-0123456789',
      ENCRYPTION_KEY: encryptionKey,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 240_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}: ${err}`);
    const healthy = await fetch(`${base}/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (healthy) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not become healthy: ${err}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, base, logs: () => out.split('\n').filter(Boolean) };
}

async function stopped(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function adminLogin(base: string): Promise<{ status: number; workspaces: unknown[] }> {
  const res = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: ADMIN_PASSWORD }),
  });
  const body = (await res.json()) as { workspaces?: unknown[] };
  return { status: res.status, workspaces: body.workspaces ?? [] };
}

/** The log lines saying the database was initialised apart, with the pid that did it. */
function initialisedApart(lines: string[]): number[] {
  return lines
    .map((line) => /initialised the embedded database .* in a separate process \(pid (\d+)\)/i.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => Number(match[1]));
}

/**
 * The log lines as `initialisedApart` reads them, once the line has arrived: the service logs
 * asynchronously, so it can answer `/health` a moment before its start-up lines reach the pipe.
 */
async function initialisedApartOnceLogged(started: Started): Promise<number[]> {
  const deadline = Date.now() + 5_000;
  while (initialisedApart(started.logs()).length === 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  return initialisedApart(started.logs());
}

// The compiled service only: Jest runs the sources, which initialise in-process (no compiled initialiser).
(process.env.DATABASE_URL ? describe.skip : describe)('first start on the embedded engine (compiled service)', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) await stopped(child);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('initialises an empty data directory in a child process, then serves it; a restart does not', async () => {
    execFileSync(process.execPath, ['scripts/build.mjs', '--quiet'], { stdio: 'ignore' });
    const dataDir = mkdtempSync(join(tmpdir(), 'sis-first-start-'));
    dirs.push(dataDir);
    // What an interrupted first start leaves: a half-made database beside the empty directory.
    mkdirSync(join(dataDir, 'pgdata.initialising'), { recursive: true });
    writeFileSync(join(dataDir, 'pgdata.initialising', 'PG_VERSION'), '17\n');
    const key = randomBytes(32).toString('base64');

    const first = await startCompiled(dataDir, key);
    children.push(first.child);
    const pids = await initialisedApartOnceLogged(first);
    expect(pids).toHaveLength(1);
    expect(pids[0]).not.toBe(first.child.pid);
    expect(existsSync(join(dataDir, 'pgdata', 'PG_VERSION'))).toBe(true);
    expect(existsSync(join(dataDir, 'pgdata.initialising'))).toBe(false);
    // The bootstrap admin and workspace exist, and every migration ran (login reads their tables).
    const login = await adminLogin(first.base);
    expect(login.status).toBe(200);
    expect(login.workspaces).toHaveLength(1);
    await stopped(first.child);

    const again = await startCompiled(dataDir, key);
    children.push(again.child);
    expect(initialisedApart(again.logs())).toEqual([]);
    const relogin = await adminLogin(again.base);
    expect(relogin.status).toBe(200);
    expect(relogin.workspaces).toEqual(login.workspaces);
  }, 600_000);
});
