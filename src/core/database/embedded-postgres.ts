import { PGlite } from '@electric-sql/pglite';
import { fuzzystrmatch } from '@electric-sql/pglite/contrib/fuzzystrmatch';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Connections the loopback server accepts: the service's pool plus room for the CLI and psql. */
export const EMBEDDED_MAX_CONNECTIONS = 24;
/**
 * The service's own pool: ONE connection. PGlite runs one session, and pglite-socket interleaves the
 * extended-protocol messages of concurrent connections (measured: `portal "" does not exist`, and
 * results delivered to the wrong query). One connection serialises exactly as PGlite does; the
 * TransactionHost guarantees code inside a transaction never needs a second connection.
 */
export const EMBEDDED_POOL_SIZE = 1;

/**
 * Settings on top of PGlite's own start parameters. `shared_buffers`: PostgreSQL's default 128 MB
 * lives inside the service process on this engine and is touched as soon as PGlite starts (measured:
 * 285 MB resident right after start with 128 MB, 187 MB with 32 MB, and 0.5 s less CPU to start).
 * Pages that do not fit are read back from the operating system's file cache: a 30,000-row
 * import costs no more CPU with 32 MB (docs/performance.md, "Embedded write path").
 */
export const EMBEDDED_SETTINGS: readonly string[] = ['shared_buffers=32MB'];

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by process ${pid}. ` +
        `Connect through ${join(dataDir, 'db-url')} instead, or stop that process.`,
    );
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid holding the data dir, if a live process other than this one holds it. */
export function dataDirOwner(dataDir: string): number | null {
  const lock = join(dataDir, 'pgdata.lock');
  if (!existsSync(lock)) return null;
  const pid = Number(readFileSync(lock, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 && processAlive(pid) ? pid : null;
}

/**
 * Embedded PostgreSQL: PGlite persisted in DATA_DIR/pgdata, served on a loopback port by
 * pglite-socket so the ordinary `pg` driver (and psql) reach it exactly like a real server.
 * A lock file stops a second process from opening the same directory (both would "succeed" and lose writes).
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly dataDir: string,
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly url: string,
  ) {}

  static async start(dataDir: string): Promise<EmbeddedPostgres> {
    mkdirSync(dataDir, { recursive: true });
    EmbeddedPostgres.lock(dataDir);
    try {
      // The contrib extensions the migrations create (trigram search, accent folding, fuzzy matching).
      const db = await PGlite.create({
        dataDir: join(dataDir, 'pgdata'),
        extensions: { pg_trgm, unaccent, fuzzystrmatch },
        startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((setting) => ['-c', setting])],
      });
      const server = new PGLiteSocketServer({
        db,
        host: '127.0.0.1',
        port: 0,
        maxConnections: EMBEDDED_MAX_CONNECTIONS,
      });
      await server.start();
      const port = server.getServerConn().split(':').pop();
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
      writeFileSync(join(dataDir, 'db-url'), `${url}\n`);
      return new EmbeddedPostgres(dataDir, db, server, url);
    } catch (error) {
      EmbeddedPostgres.unlock(dataDir);
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
    rmSync(join(this.dataDir, 'db-url'), { force: true });
    EmbeddedPostgres.unlock(this.dataDir);
  }

  private static lock(dataDir: string): void {
    const path = join(dataDir, 'pgdata.lock');
    const owner = dataDirOwner(dataDir);
    if (owner !== null && owner !== process.pid) throw new DataDirLockedError(dataDir, owner);
    rmSync(path, { force: true });
    const fd = openSync(path, 'wx');
    writeSync(fd, String(process.pid));
    closeSync(fd);
  }

  private static unlock(dataDir: string): void {
    const path = join(dataDir, 'pgdata.lock');
    if (existsSync(path) && readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path, { force: true });
  }
}
