import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { AdminClient, adminSocketPath } from '../../src/core/admin/admin-socket';
import { SERVICE_ENTRY, nodeOptionsOf } from '../../src/core/runtime/start-command';

export type Json = Record<string, unknown>;

/** Every child process the bench started, so an interrupted run leaves none behind. */
const children = new Set<ChildProcess>();
function track(child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const child of children) child.kill('SIGKILL');
    process.exit(130);
  });
}

export const ADMIN_PASSWORD = 'bench-password-1';

/** The repository root (bench files run from dist/bench/). */
export const ROOT = join(__dirname, '..', '..', '..');
const MAIN = join(ROOT, SERVICE_ENTRY);

/**
 * The node options `npm start` gives the service (package.json's `start`: `node [options]
 * dist/bundle/main.js`), so every service and worker the bench starts runs as `npm start` runs it
 * (e.g. `--v8-pool-size=1`, which only takes effect on the command line: src/core/runtime/start-command.ts).
 */
export const START_OPTIONS: readonly string[] = (() => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const options = nodeOptionsOf(pkg.scripts.start ?? '', SERVICE_ENTRY);
  if (!options)
    throw new Error(`package.json's start script is not "node [options] ${SERVICE_ENTRY}": ${pkg.scripts.start}`);
  return options;
})();

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function call(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<Json> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as Json) : {};
}

export interface Service {
  readonly child: ChildProcess;
  readonly base: string;
  readonly env: Record<string, string>;
  /** ms from spawn to a healthy /health. */
  readonly startedInMs: number;
}

export function commonEnv(dataDir: string): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN_PASSWORD,
    LOG_LEVEL: 'warn',
    LOGIN_RATE_LIMIT: '100000',
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    JWT_SECRET: 'bench-jwt-secret-0123456789',
  };
}

/**
 * Spawns `dist/bundle/main.js` (SERVICE_ENTRY) as `npm start` does (its node options, START_OPTIONS) with exactly `env`
 * (plus PATH) and waits for /health. `nodeArgs` go after those, before the script (e.g. `--require`).
 */
export async function startService(
  env: Record<string, string>,
  timeoutMs = 180_000,
  nodeArgs: readonly string[] = [],
): Promise<Service> {
  const port = await freePort();
  const started = performance.now();
  const child = track(
    spawn(process.execPath, [...START_OPTIONS, ...nodeArgs, MAIN], {
      env: { PATH: process.env.PATH ?? '', ...env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${base}/health`)).ok) return { child, base, env, startedInMs: performance.now() - started };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('service did not become healthy');
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A worker-role process (no HTTP): waits a moment for it to wire its queues. */
export async function startWorker(
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
): Promise<ChildProcess> {
  const child = track(
    spawn(process.execPath, [...START_OPTIONS, ...nodeArgs, MAIN], {
      env: { PATH: process.env.PATH ?? '', ...env, APP_ROLE: 'worker', PORT: '0' },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  await new Promise((r) => setTimeout(r, 4_000));
  if (child.exitCode !== null) throw new Error(`worker exited with ${child.exitCode}`);
  return child;
}

export async function stop(child: ChildProcess | null | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/**
 * The embedded engine accepts the service's own pool only (issue 9 item 8): the bench's queries go
 * through the service's admin socket (DATA_DIR/admin.sock), which runs each statement on that pool.
 * Only `query(text, params?)` → `{ rows, rowCount }` and `end()` are implemented.
 */
class AdminSocketDb extends Client {
  private constructor(private readonly admin: AdminClient) {
    super();
  }

  static async open(dataDir: string): Promise<AdminSocketDb> {
    return new AdminSocketDb(await AdminClient.connect(adminSocketPath(dataDir)));
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override async query(text: any, params?: any): Promise<any> {
    const response = await this.admin.request({ op: 'sql', sql: String(text), params: params ?? [] });
    if (!response.ok) throw new Error(response.error.message);
    return response.result;
  }

  override async end(): Promise<void> {
    this.admin.close();
  }
}

/**
 * A database client for the service's database: the PostgreSQL one from its env, or, on the
 * embedded engine, the service's own pool through its admin socket.
 */
export async function serviceDb(service: Service): Promise<Client> {
  if (!service.env.DATABASE_URL) return AdminSocketDb.open(service.env.DATA_DIR!);
  const client = new Client({ connectionString: service.env.DATABASE_URL });
  await client.connect();
  return client;
}

/** A fresh database on the PostgreSQL server for one round, dropped afterwards. */
export async function withDatabase<T>(adminUrl: string, run: (url: string) => Promise<T>): Promise<T> {
  const name = `sis_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  if (process.env.BENCH_VERBOSE) {
    // Its oid finds the round's pg_stat_statements rows (dbid) after the database is dropped.
    const oid = (await admin.query(`SELECT oid FROM pg_database WHERE datname = $1`, [name])).rows[0]?.oid;
    console.error(`bench database ${name} (oid ${String(oid)})`);
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await run(url.toString());
  } finally {
    // BENCH_KEEP_DATABASE=1 keeps it for diagnosis (its statistics, its plans); drop it by hand.
    if (process.env.BENCH_KEEP_DATABASE) console.log(`bench database kept: ${name}`);
    else await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

/** A temporary DATA_DIR, removed afterwards. */
export async function withDataDir<T>(run: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'sis-bench-'));
  try {
    return await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Logs in as the bootstrap admin; returns the headers for its (ENTERPRISE) workspace. */
export async function adminSession(
  base: string,
): Promise<{ headers: Record<string, string>; userId: string; workspaceId: string }> {
  const login = await call(base, 'POST', '/auth/login', {}, { email: 'admin@example.com', password: ADMIN_PASSWORD });
  const workspace = (login.workspaces as Json[])[0]!;
  return {
    headers: { authorization: `Bearer ${String(login.accessToken)}`, 'x-workspace-id': String(workspace.id) },
    userId: String((login.user as Json).id),
    workspaceId: String(workspace.id),
  };
}

/** The bare Express 5 baseline app (bench/baseline-express.ts) as a child process on the same Node. */
export async function startBaseline(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = track(
    spawn(process.execPath, [join(__dirname, '..', 'baseline-express.js')], {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const url = `http://127.0.0.1:${port}/inbound`;
  for (let i = 0; i < 500; i++) {
    try {
      if ((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).ok)
        return { child, url };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('baseline app did not start');
}
