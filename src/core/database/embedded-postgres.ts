import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { lockDataDir, unlockDataDir } from './data-dir-lock';
import { compiledEmbeddedEngine } from './embedded-engine';
import type { EmbeddedEngineServer } from './embedded-server';

export { DataDirLockedError, dataDirOwner } from './data-dir-lock';

/**
 * The service's own pool: ONE connection. PGlite runs one session, and the PostgreSQL wire protocol
 * of two clients cannot share it: their extended-protocol messages interleave (measured with
 * pglite-socket: `portal "" does not exist`, and results delivered to the wrong query). One
 * connection serialises exactly as PGlite does; the TransactionHost guarantees code inside a
 * transaction never needs a second connection.
 */
export const EMBEDDED_POOL_SIZE = 1;

/**
 * The compiled worker entry (dist/…/embedded-worker.js), or null where there is none: Jest runs the
 * TypeScript sources as ES modules (no `require`), and a worker thread cannot load them; the engine
 * then runs in the calling thread, the same code (embedded-server.ts).
 */
function engineWorkerFile(): string | null {
  return compiledFile('embedded-worker.js');
}

/** A compiled file next to this one (dist/…), or null under Jest (see engineWorkerFile). */
function compiledFile(name: string): string | null {
  if (typeof require !== 'function' || typeof __dirname !== 'string') return null;
  const file = join(__dirname, name);
  return existsSync(file) ? file : null;
}

/** PGlite's database directory inside DATA_DIR, and where a first start builds it (renamed once complete). */
const PGDATA = 'pgdata';
const PGDATA_INITIALISING = 'pgdata.initialising';

/** Whether DATA_DIR holds a database already (PostgreSQL's data directory marker). */
export function embeddedDatabaseExists(dataDir: string): boolean {
  return existsSync(join(dataDir, PGDATA, 'PG_VERSION'));
}

/** What a first start's initialising process did (see EmbeddedPostgres.initialiseApart). */
export interface ApartInitialisation {
  readonly pid: number;
  readonly applied: readonly string[];
  /** Why it failed, when it did: the service then initialised the directory itself, as before. */
  readonly failure?: string;
}

/**
 * Runs the first start's initialisation (PGlite's initdb, and the migrations with `migrate`) in a
 * short-lived child process (embedded-initialiser.js). A WebAssembly memory never shrinks: initdb and
 * ~100 migrations left the service's PGlite memory and malloc arenas ≈ 100 MB larger for its whole life
 * than a restart's (docs/performance.md, "Session 23: embedded memory"); in a child that memory goes
 * back to the system when it exits. The child builds DATA_DIR/pgdata.initialising and renames it to
 * pgdata when complete, so an interrupted first start leaves no half-made database behind.
 */
function initialiseInChild(file: string, dataDir: string, migrate: boolean): Promise<ApartInitialisation> {
  // An IPC channel: the child stops if this process goes away (its 'disconnect').
  const child = spawn(process.execPath, [file, dataDir, migrate ? 'migrate' : 'initdb'], {
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (text: string) => (out += text));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      if (code !== 0) {
        reject(
          new Error(
            `process ${child.pid} ended with ${signal ? `signal ${signal}` : `exit code ${code}`} ` +
              `(its messages are on stderr above)`,
          ),
        );
        return;
      }
      try {
        const result = JSON.parse(out.trim().split('\n').pop() ?? '') as { applied?: unknown };
        const applied = Array.isArray(result.applied) ? result.applied.map(String) : [];
        resolve({ pid: child.pid ?? 0, applied });
      } catch {
        reject(new Error(`process ${child.pid} answered ${JSON.stringify(out)}`));
      }
    });
  });
}

function messageType(message: unknown): string | undefined {
  return typeof message === 'object' && message !== null && 'type' in message && typeof message.type === 'string'
    ? message.type
    : undefined;
}

/**
 * PGlite and its wire server in a worker thread (issue 16 item 6, the CLI): the engine starts
 * (WebAssembly compile, PGlite's start, ~0.35 s of CPU) on the second core while the main thread
 * loads the command's modules. The main thread keeps the lock and talks to it over loopback TCP as
 * in-process.
 */
function engineInWorker(file: string, pgdata: string, credential: string): Promise<EmbeddedEngineServer> {
  const worker = new Worker(file, { workerData: { pgdata, credential } });
  return new Promise((resolve, reject) => {
    const early = (error: Error): void => reject(error);
    const exited = (code: number): void =>
      reject(new Error(`the embedded database's thread ended (exit code ${code}) before it was ready`));
    worker.once('error', early);
    worker.once('exit', exited);
    worker.on('message', (message: unknown) => {
      const type = messageType(message);
      if (type !== 'ready' && type !== 'failed') return;
      worker.off('error', early);
      worker.off('exit', exited);
      if (type === 'failed') {
        const text = typeof message === 'object' && message !== null && 'message' in message ? message.message : '';
        void worker.terminate();
        reject(new Error(`The embedded database did not start: ${String(text)}`));
        return;
      }
      const port = typeof message === 'object' && message !== null && 'port' in message ? Number(message.port) : NaN;
      // A failure of the engine's thread later is a failure of the service, as it would be in-process.
      worker.on('error', (error) =>
        process.nextTick(() => {
          throw error;
        }),
      );
      let ended = false;
      const gone = new Promise<void>((done) => worker.once('exit', () => ((ended = true), done())));
      resolve({
        port,
        close: async () => {
          if (!ended) worker.postMessage({ type: 'stop' });
          await gone;
        },
      });
    });
  });
}

async function engineInThisThread(pgdata: string, credential: string): Promise<EmbeddedEngineServer> {
  const { serveEmbeddedEngine } = await import('./embedded-server.js');
  return serveEmbeddedEngine(pgdata, credential);
}

/** A start begun early (main.ts, the CLI) and taken over by the DatabaseRuntime that opens the same directory. */
let early: { readonly dataDir: string; readonly started: Promise<EmbeddedPostgres> } | null = null;

/** A first start's initialisation running in a child process (main.ts), awaited by start() on the same directory. */
let initialising: { readonly dataDir: string; readonly done: Promise<ApartInitialisation> } | null = null;

/**
 * Embedded PostgreSQL: PGlite persisted in DATA_DIR/pgdata, served on a loopback port to the
 * service's own `pg` pool only. The pool is recognised by a per-start random `application_name`
 * that exists only in this process's memory (in the URL it builds, never written to disk); any
 * other client (psql, a second `pg` client) gets a FATAL ErrorResponse saying why, then the socket
 * closes. A lock file stops a second process from opening the same directory.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly dataDir: string,
    private readonly engine: EmbeddedEngineServer,
    /** The pool's URL, with the per-start credential: never log it or write it to disk. */
    readonly url: string,
    /** Set when this start's data directory was initialised by a child process (initialiseApart). */
    readonly initialisedApart: ApartInitialisation | null = null,
  ) {}

  /**
   * The service's first start on an empty DATA_DIR (main.ts): begins initdb (and the migrations, with
   * `migrate`) in a child process while this one loads the application's modules; start() on the same
   * directory waits for it, then opens the initialised database. Does nothing when a database exists
   * or no compiled initialiser exists (Jest: the first start then initialises in this process as before).
   */
  static initialiseApart(dataDir: string, { migrate }: { migrate: boolean }): void {
    const file = compiledFile('embedded-initialiser.js');
    if (!file || embeddedDatabaseExists(dataDir)) return;
    const done = initialiseInChild(file, dataDir, migrate);
    done.catch(() => undefined); // reported when start() takes it over
    initialising = { dataDir, done };
  }

  /**
   * Initialises an empty DATA_DIR (the child process of initialiseApart): opens PGlite on
   * DATA_DIR/pgdata.initialising (initdb), lets `prepare` run against it (the migrations), stops it
   * (the shutdown checkpoint), and renames the directory to pgdata. Holds the data directory's lock throughout.
   */
  static async initialise(dataDir: string, prepare: (url: string) => Promise<void>): Promise<void> {
    if (embeddedDatabaseExists(dataDir)) throw new Error(`${dataDir} already holds a database`);
    mkdirSync(dataDir, { recursive: true });
    lockDataDir(dataDir);
    try {
      rmSync(join(dataDir, PGDATA_INITIALISING), { recursive: true, force: true });
      const db = await EmbeddedPostgres.launch(dataDir, false, PGDATA_INITIALISING);
      try {
        await prepare(db.url);
      } finally {
        await db.engine.close();
      }
      // An empty pgdata (made by hand, or by an older version's interrupted first start) is replaced;
      // a non-empty one without a database is not ours to delete (rmdir refuses, ENOTEMPTY).
      if (existsSync(join(dataDir, PGDATA))) rmdirSync(join(dataDir, PGDATA));
      renameSync(join(dataDir, PGDATA_INITIALISING), join(dataDir, PGDATA));
    } finally {
      unlockDataDir(dataDir);
    }
  }

  /**
   * Begins the start before the caller loads the application's modules; `start(dataDir)` later takes
   * it over (and reports any failure, e.g. DataDirLockedError, there). With `ownThread` (the CLI) the
   * engine boots in its worker thread on the other core meanwhile; otherwise (the service) only its
   * WebAssembly is compiled early and the engine later runs in the calling thread: a worker thread
   * costs the service 40–80 MB of resident memory during a CSV import (docs/performance.md,
   * session 21), and the service's memory is a target while its restart is within its own.
   */
  static startEarly(dataDir: string, { ownThread }: { ownThread: boolean }): void {
    if (!ownThread || !engineWorkerFile()) {
      void compiledEmbeddedEngine();
      return;
    }
    const started = EmbeddedPostgres.launch(dataDir, true);
    started.catch(() => undefined); // reported when start() takes it over
    early = { dataDir, started };
  }

  static async start(dataDir: string): Promise<EmbeddedPostgres> {
    if (early?.dataDir === dataDir) {
      const { started } = early;
      early = null;
      return started;
    }
    if (initialising?.dataDir === dataDir) {
      const { done } = initialising;
      initialising = null;
      // A failed child costs memory, not the start: this process then initialises the directory itself
      // (a busy directory still fails there, with DataDirLockedError).
      const initialised = await done.catch(
        (error: unknown): ApartInitialisation => ({
          pid: 0,
          applied: [],
          failure: error instanceof Error ? error.message : String(error),
        }),
      );
      const db = await EmbeddedPostgres.launch(dataDir, false);
      return new EmbeddedPostgres(dataDir, db.engine, db.url, initialised);
    }
    return EmbeddedPostgres.launch(dataDir, false);
  }

  private static async launch(dataDir: string, ownThread: boolean, pgdataName = PGDATA): Promise<EmbeddedPostgres> {
    mkdirSync(dataDir, { recursive: true });
    lockDataDir(dataDir);
    try {
      const credential = `sis-${randomBytes(18).toString('hex')}`;
      const pgdata = join(dataDir, pgdataName);
      const file = ownThread ? engineWorkerFile() : null;
      const engine = file
        ? await engineInWorker(file, pgdata, credential)
        : await engineInThisThread(pgdata, credential);
      // Since issue 9 item 8 no URL file is written: nothing outside this process can connect.
      rmSync(join(dataDir, 'db-url'), { force: true });
      const url = `postgres://postgres@127.0.0.1:${engine.port}/postgres?application_name=${credential}`;
      return new EmbeddedPostgres(dataDir, engine, url);
    } catch (error) {
      unlockDataDir(dataDir);
      throw error;
    }
  }

  /** The loopback address the server listens on (tests prove another client is refused there). */
  get address(): { host: string; port: number } {
    return { host: '127.0.0.1', port: this.engine.port };
  }

  async stop(): Promise<void> {
    await this.engine.close();
    unlockDataDir(this.dataDir);
  }
}
