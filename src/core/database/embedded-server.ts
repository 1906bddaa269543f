import { PGlite } from '@electric-sql/pglite';
import { fuzzystrmatch } from '@electric-sql/pglite/contrib/fuzzystrmatch';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { unaccent } from '@electric-sql/pglite/contrib/unaccent';
import { timingSafeEqual } from 'node:crypto';
import { type AddressInfo, type Server, type Socket, createServer } from 'node:net';
import { compiledEmbeddedEngine } from './embedded-engine';

/**
 * The embedded engine itself: PGlite and the wire protocol in front of it. Runs in the thread that
 * serves it — a worker thread of the service or CLI (embedded-worker.ts), or the calling thread where
 * no compiled worker file exists (tests) — and never touches the data directory's lock
 * (embedded-postgres.ts holds it in the main thread).
 */

/** Why any other database client is refused (psql, a second `pg` client, another process). */
export const EMBEDDED_REFUSAL =
  'the embedded database is in use by the running service and accepts no other client; ' +
  'use `npm run cli` (it talks to the service through DATA_DIR/admin.sock), ' +
  '`npm run cli -- db:query --sql "SELECT ..."` to inspect data, or stop the service first';

/**
 * Settings on top of PGlite's own start parameters. `shared_buffers`: PostgreSQL's default 128 MB
 * lives inside the service process on this engine and is touched as soon as PGlite starts (measured:
 * 285 MB resident right after start with 128 MB, 187 MB with 32 MB, and 0.5 s less CPU to start).
 * Pages that do not fit are read back from the operating system's file cache: a 30,000-row
 * import costs no more CPU with 32 MB (docs/performance.md, "Embedded write path"), and 16 MB keeps
 * PGlite's WebAssembly memory ≈ 18 MB smaller at a 100,000-row import's peak with the lists as fast
 * (session 23: a WebAssembly memory never shrinks, so every buffer touched once stays resident).
 * `default_statistics_target` 100 → 20: ANALYZE (TableMaintenanceService's timer) reads a sample of
 * 300 × the target rows into that same memory; after a 100,000-row import the 30,000-row sample of
 * `catalog_items` grew it by ~30 MB for good (CSV commit peak 358 → 327 MB, session 27). 6,000 rows
 * still estimate a table of the embedded engine's size (DESIGN §13 measures it at a tenth of PostgreSQL's).
 */
export const EMBEDDED_SETTINGS: readonly string[] = ['shared_buffers=16MB', 'default_statistics_target=20'];

/** A running engine: the loopback port of its wire server, and how to stop both. */
export interface EmbeddedEngineServer {
  readonly port: number;
  close(): Promise<void>;
}

/** Opens PGlite on `pgdata` and serves it on a loopback port to clients that present `credential`. */
export async function serveEmbeddedEngine(pgdata: string, credential: string): Promise<EmbeddedEngineServer> {
  // The contrib extensions the migrations create (trigram search, accent folding, fuzzy matching).
  const db = await PGlite.create({
    dataDir: pgdata,
    extensions: { pg_trgm, unaccent, fuzzystrmatch },
    // Compiled while the application's modules loaded (main.ts, the CLI), or now.
    pgliteWasmModule: await compiledEmbeddedEngine(),
    startParams: [...PGlite.defaultStartParams, ...EMBEDDED_SETTINGS.flatMap((setting) => ['-c', setting])],
  });
  const server = new EmbeddedWireServer(db, credential);
  let port: number;
  try {
    port = await server.listen();
  } catch (error) {
    await db.close();
    throw error;
  }
  return {
    port,
    close: async () => {
      await server.close();
      await db.close();
    },
  };
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

/** A Sync message: ends an extended-protocol cycle a vanished client left open. */
const SYNC = new Uint8Array([0x53, 0, 0, 0, 4]);
/** ReadyForQuery with status Idle (`Z`, length 5, `I`): the session is free for another connection. */
const READY_IDLE = Buffer.from([0x5a, 0, 0, 0, 5, 0x49]);

interface Connection {
  readonly socket: Socket;
  /** This connection's prefix for the names of its prepared statements in the one PGlite session. */
  readonly prefix: Buffer;
  /** Its prepared statements (names as the session knows them), deallocated when it closes. */
  readonly statements: Set<string>;
  /** Complete frontend messages not yet executed. */
  readonly pending: Uint8Array[];
  /** The last bytes PGlite answered to this connection's latest message. */
  tail: Buffer;
  closed: boolean;
}

/**
 * The PostgreSQL wire protocol in front of PGlite (replaces pglite-socket's server, which accepts
 * any client). The StartupMessage is checked first; then every complete frontend message goes to
 * `execProtocolRawStream`, one at a time under PGlite's exclusive lock.
 *
 * PGlite has ONE session, so connections take turns by protocol cycle, not by message: the
 * connection being served keeps the session until PGlite answers ReadyForQuery with status Idle
 * (end of a simple query, of an extended-protocol cycle at Sync, of a COPY, outside a transaction).
 * Another connection's messages wait meanwhile, so no statement, portal or transaction is ever
 * shared (pglite-socket interleaved messages: `portal "" does not exist`, answers to the wrong query).
 */
class EmbeddedWireServer {
  private readonly server: Server;
  private readonly connections = new Set<Connection>();
  /** Connections with messages waiting for the session, in arrival order. */
  private readonly waiting: Connection[] = [];
  /** The connection the session belongs to until it is idle again. */
  private holder: Connection | null = null;
  private pumping: Promise<void> | null = null;
  /** Statements of closed connections still to deallocate (simple-query messages), run between cycles. */
  private readonly cleanups: Uint8Array[] = [];
  private serial = 0;
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
    for (const connection of this.connections) connection.socket.destroy();
    await closed;
    await this.pumping;
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    const connection: Connection = {
      socket,
      prefix: Buffer.from(`c${++this.serial}_`),
      statements: new Set(),
      pending: [],
      tail: Buffer.alloc(0),
      closed: false,
    };
    this.connections.add(connection);
    let buffer: Buffer = Buffer.alloc(0);
    // Chunks of a message still incomplete: joined once it is whole (a 4 MB upload arrives in ~64 kB
    // chunks; joining at every chunk copied it ~60 times over).
    const parts: Buffer[] = [];
    let partsLength = 0;
    let needed = 0;
    let started = false;
    let refused = false;
    socket.on('data', (chunk: Buffer) => {
      if (refused) return;
      if (needed > 0 && buffer.length + partsLength + chunk.length < needed) {
        parts.push(chunk);
        partsLength += chunk.length;
        return;
      }
      buffer = buffer.length || parts.length ? Buffer.concat([buffer, ...parts, chunk]) : chunk;
      parts.length = 0;
      partsLength = 0;
      needed = 0;
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
          if (buffer.length < length) {
            needed = length;
            return;
          }
          const message = buffer.subarray(0, length);
          buffer = buffer.subarray(length);
          if (code !== PROTOCOL_3 || !sameSecret(startupParameters(message).get('application_name'), this.credential)) {
            refused = true;
            socket.end(fatalError(EMBEDDED_REFUSAL));
            return;
          }
          started = true;
          this.enqueue(connection, Buffer.from(message));
          continue;
        }
        if (buffer.length < 5) return;
        const length = 1 + buffer.readInt32BE(1);
        if (buffer.length < length) {
          needed = length;
          return;
        }
        this.enqueue(connection, ownStatementNames(connection, buffer.subarray(0, length)));
        buffer = buffer.subarray(length);
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      refused = true;
      connection.closed = true;
      connection.pending.length = 0;
      for (const name of connection.statements)
        this.cleanups.push(simpleQuery(`DEALLOCATE "${name.replaceAll('"', '""')}"`));
      connection.statements.clear();
      this.connections.delete(connection);
      const at = this.waiting.indexOf(connection);
      if (at >= 0) this.waiting.splice(at, 1);
      this.pump();
    });
  }

  private enqueue(connection: Connection, message: Uint8Array): void {
    connection.pending.push(message);
    if (connection !== this.holder && !this.waiting.includes(connection)) this.waiting.push(connection);
    this.pump();
  }

  private pump(): void {
    if (this.pumping) return;
    this.pumping = this.serve().finally(() => {
      this.pumping = null;
      // Messages that arrived while the last one finished.
      if ((this.holder && (this.holder.pending.length || this.holder.closed)) || (!this.holder && this.waiting.length))
        this.pump();
    });
  }

  private async serve(): Promise<void> {
    for (;;) {
      let connection = this.holder;
      if (connection?.closed) {
        await this.abandon();
        continue;
      }
      if (connection && !connection.pending.length) return; // mid-cycle: wait for its next message
      if (!connection && this.cleanups.length) {
        await this.deallocate(this.cleanups.shift()!);
        continue;
      }
      if (!connection) {
        connection = this.waiting.shift() ?? null;
        if (!connection) return;
        if (connection.closed || !connection.pending.length) continue;
        this.holder = connection;
      }
      // Everything the connection sent so far in one call (a statement's Parse, Bind, Describe,
      // Execute and Sync arrive together): PGlite runs batched messages in order, and one call
      // instead of five saves its per-call work and four socket writes per statement.
      // (Not a StartupMessage or a Terminate: PGlite takes those only alone.)
      // A large message (a CSV import batch's Bind, ~0.5 MB) goes on its own instead: joining it to the
      // others would copy it once more in this process's malloc heap, which keeps what it held.
      let count = 1;
      let bytes = connection.pending[0]!.length;
      while (count < connection.pending.length && batchable(connection.pending[count]!)) {
        bytes += connection.pending[count]!.length;
        count++;
      }
      const messages =
        batchable(connection.pending[0]!) && bytes < LARGE_MESSAGE
          ? connection.pending.splice(0, count)
          : connection.pending.splice(0, 1);
      await this.execute(connection, messages.length === 1 ? messages[0]! : Buffer.concat(messages));
      if (!connection.closed && connection.tail.equals(READY_IDLE)) {
        this.holder = null;
        if (connection.pending.length) this.waiting.push(connection);
      }
    }
  }

  private async execute(connection: Connection, message: Uint8Array): Promise<void> {
    connection.tail = Buffer.alloc(0);
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(message, {
          onRawData: (data) => {
            if (!data.length) return;
            const bytes = Buffer.from(data);
            connection.tail = Buffer.concat([connection.tail, bytes]).subarray(-READY_IDLE.length);
            if (connection.socket.writable) connection.socket.write(bytes);
          },
        }),
      );
    } catch {
      connection.socket.destroy();
    }
  }

  /** Ends a closed connection's prepared statement (the session is idle: no connection holds it). */
  private async deallocate(message: Uint8Array): Promise<void> {
    try {
      await this.db.runExclusive(() => this.db.execProtocolRawStream(message, { onRawData: () => undefined }));
    } catch {
      // Gone already (its Parse failed): nothing to free.
    }
  }

  /** The holder vanished mid-cycle or mid-transaction: end its cycle and roll back before the next connection. */
  private async abandon(): Promise<void> {
    this.holder = null;
    try {
      await this.db.runExclusive(() => this.db.execProtocolRawStream(SYNC, { onRawData: () => undefined }));
      if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    } catch {
      // Nothing to recover: the next connection starts a new cycle anyway.
    }
  }
}

const TERMINATE = 0x58; // 'X'

/**
 * From this size on a frontend message is executed alone and not copied out of the bytes it arrived in
 * (issue 16 item 5): every copy of a CSV import batch's ~0.5 MB Bind message is malloc memory that glibc
 * keeps for the process's life (docs/performance.md, "Session 24: embedded CSV memory").
 */
const LARGE_MESSAGE = 64 * 1024;

/** Whether a frontend message can share one PGlite call with others (not a StartupMessage or Terminate). */
function batchable(message: Uint8Array): boolean {
  return message[0] !== 0 && message[0] !== TERMINATE;
}

/** A simple-query (`Q`) message. */
function simpleQuery(sql: string): Buffer {
  const text = Buffer.from(`${sql}\0`, 'utf8');
  const header = Buffer.alloc(5);
  header.write('Q', 0);
  header.writeInt32BE(text.length + 4, 1);
  return Buffer.concat([header, text]);
}

const PARSE = 0x50; // 'P': name, query, …
const BIND = 0x42; // 'B': portal, statement name, …
const DESCRIBE = 0x44; // 'D': 'S' | 'P', name
const CLOSE = 0x43; // 'C': 'S' | 'P', name
const STATEMENT = 0x53; // 'S'

/**
 * A message the connection can keep: small ones are copied (not to hold on to the socket's 64 kB read
 * buffers they arrived in), a large one is the view it is (it fills the bytes joined for it).
 */
function own(message: Buffer): Buffer {
  return message.length < LARGE_MESSAGE ? Buffer.from(message) : message;
}

/**
 * A copy of one frontend message with its prepared statement's name (if any, and not the unnamed
 * one) prefixed by the connection's own prefix: on a real server each connection has its own
 * prepared statements, here every connection shares PGlite's one session, so each gets its own
 * namespace in it (and a pool client replaced by a new one can never collide with its predecessor's
 * names, `42P05`). Names parsed are remembered, and deallocated when the connection closes.
 */
function ownStatementNames(connection: Connection, message: Buffer): Buffer {
  const type = message[0];
  let at: number;
  if (type === PARSE) at = 5;
  else if (type === BIND)
    at = message.indexOf(0, 5) + 1; // after the portal's name
  else if ((type === DESCRIBE || type === CLOSE) && message[5] === STATEMENT) at = 6;
  else return own(message);
  const end = message.indexOf(0, at);
  if (at <= 0 || end < 0 || end === at) return own(message); // malformed (PGlite answers it) or unnamed
  const named = Buffer.concat([message.subarray(0, at), connection.prefix, message.subarray(at)]);
  named.writeInt32BE(named.length - 1, 1);
  const name = named.toString('utf8', at, end + connection.prefix.length);
  if (type === PARSE) connection.statements.add(name);
  else if (type === CLOSE) connection.statements.delete(name);
  return named;
}
