import { PGlite } from '@electric-sql/pglite';
import { fuzzystrmatch } from '@electric-sql/pglite/contrib/fuzzystrmatch';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';
import { join } from 'node:path';
import { lockDataDir, unlockDataDir } from './data-dir-lock';

export { DataDirLockedError, dataDirOwner } from './data-dir-lock';

/**
 * The service's own pool: ONE connection. PGlite runs one session, and the PostgreSQL wire protocol
 * of two clients cannot share it: their extended-protocol messages interleave (measured with
 * pglite-socket: `portal "" does not exist`, and results delivered to the wrong query). One
 * connection serialises exactly as PGlite does; the TransactionHost guarantees code inside a
 * transaction never needs a second connection.
 */
export const EMBEDDED_POOL_SIZE = 1;

/** Why any other database client is refused (psql, a second `pg` client, another process). */
export const EMBEDDED_REFUSAL =
  'the embedded database is in use by the running service and accepts no other client; ' +
  'use `npm run cli` (it talks to the service through DATA_DIR/admin.sock), ' +
  '`npm run cli -- db:query --sql "SELECT ..."` to inspect data, or stop the service first';

/**
 * Settings on top of PGlite's own start parameters. `shared_buffers`: PostgreSQL's default 128 MB
 * lives inside the service process on this engine and is touched as soon as PGlite starts (measured:
 * 285 MB resident right after start with 128 MB, 187 MB with 32 MB, and 0.5 s less CPU to start).
 * Pages that do not fit are read back from the operating system's file cache, so a 100,000-row
 * import costs no more CPU with 32 MB (docs/performance.md, "Embedded write path").
 */
export const EMBEDDED_SETTINGS: readonly string[] = ['shared_buffers=32MB'];

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
    private readonly db: PGlite,
    private readonly server: EmbeddedWireServer,
    /** The pool's URL, with the per-start credential: never log it or write it to disk. */
    readonly url: string,
  ) {}

  static async start(dataDir: string): Promise<EmbeddedPostgres> {
    mkdirSync(dataDir, { recursive: true });
    lockDataDir(dataDir);
    try {
      // The contrib extensions the migrations create (trigram search, accent folding, fuzzy matching).
      const db = await PGlite.create({
        dataDir: join(dataDir, 'pgdata'),
        extensions: { pg_trgm, unaccent, fuzzystrmatch },
        startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((setting) => ['-c', setting])],
      });
      const credential = `sis-${randomBytes(18).toString('hex')}`;
      const server = new EmbeddedWireServer(db, credential);
      const port = await server.listen();
      // Since issue 9 item 8 no URL file is written: nothing outside this process can connect.
      rmSync(join(dataDir, 'db-url'), { force: true });
      const url = `postgres://postgres@127.0.0.1:${port}/postgres?application_name=${credential}`;
      return new EmbeddedPostgres(dataDir, db, server, url);
    } catch (error) {
      unlockDataDir(dataDir);
      throw error;
    }
  }

  /** The loopback address the server listens on (tests prove another client is refused there). */
  get address(): { host: string; port: number } {
    return { host: '127.0.0.1', port: this.server.port };
  }

  async stop(): Promise<void> {
    await this.server.close();
    await this.db.close();
    unlockDataDir(this.dataDir);
  }
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

/** A FATAL ErrorResponse (SQLSTATE 28000) carrying `message`. */
function fatalError(message: string): Buffer {
  const fields = Buffer.concat(
    [
      ['S', 'FATAL'],
      ['V', 'FATAL'],
      ['C', '28000'],
      ['M', message],
    ].map(([code, value]) => Buffer.concat([Buffer.from(code!), Buffer.from(value!, 'utf8'), Buffer.from([0])])),
  );
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(fields.length + 1 + 4, 1);
  return Buffer.concat([header, fields, Buffer.from([0])]);
}

/** The key/value parameters of a StartupMessage (after its length and protocol version). */
function startupParameters(message: Buffer): Map<string, string> {
  const parts = message.subarray(8).toString('utf8').split('\0');
  const params = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length && parts[i]; i += 2) params.set(parts[i]!, parts[i + 1]!);
  return params;
}

function sameSecret(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The PostgreSQL wire protocol in front of PGlite (replaces pglite-socket's server, which accepts
 * any client). Every complete frontend message goes to `execProtocolRawStream` in arrival order, one
 * at a time under PGlite's exclusive lock; the StartupMessage is checked first.
 */
class EmbeddedWireServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  /** One chain for every connection: PGlite executes one protocol message at a time. */
  private chain: Promise<void> = Promise.resolve();
  /** The connection whose transaction is open (rolled back if it disconnects mid-transaction). */
  private transactionOwner: Socket | null = null;
  port = 0;

  constructor(
    private readonly db: PGlite,
    private readonly credential: string,
  ) {
    this.server = createServer((socket) => this.accept(socket));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
    await this.chain;
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.setNoDelay(true);
    let buffer: Buffer = Buffer.alloc(0);
    let started = false;
    let refused = false;
    socket.on('data', (chunk: Buffer) => {
      if (refused) return;
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      for (;;) {
        if (!started) {
          if (buffer.length < 8) return;
          const length = buffer.readInt32BE(0);
          const code = buffer.readInt32BE(4);
          if (length === 8 && (code === SSL_REQUEST || code === GSSENC_REQUEST)) {
            socket.write('N');
            buffer = buffer.subarray(8);
            continue;
          }
          if (length === 16 && code === CANCEL_REQUEST) {
            socket.end();
            refused = true;
            return;
          }
          if (buffer.length < length) return;
          const message = buffer.subarray(0, length);
          buffer = buffer.subarray(length);
          if (code !== PROTOCOL_3 || !sameSecret(startupParameters(message).get('application_name'), this.credential)) {
            refused = true;
            socket.end(fatalError(EMBEDDED_REFUSAL));
            return;
          }
          started = true;
          this.enqueue(socket, Buffer.from(message));
          continue;
        }
        if (buffer.length < 5) return;
        const length = 1 + buffer.readInt32BE(1);
        if (buffer.length < length) return;
        this.enqueue(socket, Buffer.from(buffer.subarray(0, length)));
        buffer = buffer.subarray(length);
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      this.sockets.delete(socket);
      refused = true;
      this.chain = this.chain.then(async () => {
        if (this.transactionOwner !== socket) return;
        this.transactionOwner = null;
        if (this.db.isInTransaction()) await this.db.exec('ROLLBACK').catch(() => undefined);
      });
    });
  }

  private enqueue(socket: Socket, message: Uint8Array): void {
    this.chain = this.chain.then(async () => {
      if (socket.destroyed) return;
      try {
        await this.db.runExclusive(() =>
          this.db.execProtocolRawStream(message, {
            onRawData: (data) => {
              if (data.length && socket.writable) socket.write(Buffer.from(data));
            },
          }),
        );
        this.transactionOwner = this.db.isInTransaction() ? socket : null;
      } catch {
        socket.destroy();
      }
    });
  }
}
