import { chmodSync, lstatSync, rmSync } from 'node:fs';
import { type Server, type Socket, createConnection, createServer } from 'node:net';
import { join } from 'node:path';

/**
 * The local admin channel of a running embedded service (issue 9 item 8): an owner-only (0600)
 * Unix socket in DATA_DIR speaking line-delimited JSON, one response line per request line, in
 * order. Whoever can open the socket can already read DATA_DIR/pgdata, so file ownership and
 * permissions are the authentication. The service executes each request in its own process on its
 * own connection pool: the embedded database never sees a second client.
 *
 * Dependency-free on purpose: the CLI's thin client loads this and nothing of Nest or PGlite.
 */
export const ADMIN_SOCKET_FILE = 'admin.sock';
/** A request or response line longer than this closes the connection. */
const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** Linux `sun_path` holds 108 bytes including the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 107;

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, ADMIN_SOCKET_FILE);
}

/** `cli`: one CLI command (parsed and validated arguments); `sql`: one statement on the service's pool (bench, tools). */
export type AdminRequest =
  | { readonly op: 'cli'; readonly command: string; readonly args: Record<string, unknown> }
  | { readonly op: 'sql'; readonly sql: string; readonly params?: readonly unknown[] };

export type AdminResponse =
  | { readonly ok: true; readonly result: unknown }
  | {
      readonly ok: false;
      readonly error: { readonly kind: 'usage' | 'error'; readonly message: string; readonly command?: string };
    };

/** Splits a byte stream into lines; calls `onLine` for each complete one. Returns false when a line is too long. */
function lineReader(onLine: (line: string) => void): (chunk: Buffer) => boolean {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString('utf8');
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim()) onLine(line);
      newline = pending.indexOf('\n');
    }
    return Buffer.byteLength(pending) <= MAX_LINE_BYTES;
  };
}

export class AdminSocketServer {
  private readonly connections = new Set<Socket>();
  private readonly inFlight = new Set<Promise<void>>();

  private constructor(
    private readonly server: Server,
    readonly path: string,
  ) {}

  /**
   * Listens on `path` (an existing file there is removed: the caller owns DATA_DIR's lock) with mode
   * 0600 from the first instant (umask around bind, chmod as well).
   */
  static async listen(
    path: string,
    handle: (request: AdminRequest) => Promise<AdminResponse>,
  ): Promise<AdminSocketServer> {
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES)
      throw new Error(
        `admin socket path is longer than ${MAX_SOCKET_PATH_BYTES} bytes: ${path} (use a shorter DATA_DIR)`,
      );
    rmSync(path, { force: true });
    const server = createServer();
    const channel = new AdminSocketServer(server, path);
    server.on('connection', (socket) => channel.serve(socket, handle));
    const previous = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(path, () => resolve());
      });
    } finally {
      process.umask(previous);
    }
    chmodSync(path, 0o600);
    return channel;
  }

  private serve(socket: Socket, handle: (request: AdminRequest) => Promise<AdminResponse>): void {
    this.connections.add(socket);
    let chain = Promise.resolve();
    const read = lineReader((line) => {
      chain = chain.then(async () => {
        let response: AdminResponse;
        try {
          response = await handle(JSON.parse(line) as AdminRequest);
        } catch (error) {
          response = {
            ok: false,
            error: { kind: 'error', message: error instanceof Error ? error.message : String(error) },
          };
        }
        if (socket.writable) socket.write(`${JSON.stringify(response)}\n`);
      });
      const tracked = chain;
      this.inFlight.add(tracked);
      void tracked.finally(() => this.inFlight.delete(tracked));
    });
    socket.on('data', (chunk: Buffer) => {
      if (!read(chunk)) socket.destroy();
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.connections.delete(socket));
  }

  /** Stops accepting, lets the requests being executed answer, then closes and removes the socket file. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    await Promise.allSettled([...this.inFlight]);
    for (const socket of this.connections) socket.destroy();
    await closed;
    rmSync(this.path, { force: true });
  }
}

/** Why the CLI cannot use the socket at `path`, or null when it is this user's owner-only socket. */
export function adminSocketProblem(path: string): string | null {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return `${path} does not exist`;
  }
  if (!stat.isSocket()) return `${path} is not a socket`;
  if (typeof process.getuid === 'function' && stat.uid !== process.getuid())
    return `${path} belongs to another user (uid ${stat.uid})`;
  if ((stat.mode & 0o077) !== 0)
    return `${path} is accessible to other users (mode ${(stat.mode & 0o777).toString(8)})`;
  return null;
}

/** A connection to a running service's admin socket; requests are answered in order. */
export class AdminClient {
  private readonly waiting: ((response: AdminResponse | Error) => void)[] = [];

  private constructor(private readonly socket: Socket) {
    const read = lineReader((line) => {
      let response: AdminResponse | Error;
      try {
        response = JSON.parse(line) as AdminResponse;
      } catch {
        response = new Error('the admin socket answered something that is not JSON');
      }
      this.waiting.shift()?.(response);
    });
    socket.on('data', (chunk: Buffer) => {
      if (!read(chunk)) socket.destroy(new Error('the admin socket answered a line that is too long'));
    });
    const fail = (error?: Error): void => {
      for (const resolve of this.waiting.splice(0))
        resolve(error ?? new Error('the service closed the admin connection before answering'));
    };
    socket.on('error', fail);
    socket.on('close', () => fail());
  }

  /** Connects after checking that `path` is this user's owner-only socket. */
  static async connect(path: string): Promise<AdminClient> {
    const problem = adminSocketProblem(path);
    if (problem) throw new Error(`cannot use the admin socket: ${problem}`);
    const socket = createConnection(path);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new AdminClient(socket);
  }

  async request(request: AdminRequest): Promise<AdminResponse> {
    const answer = new Promise<AdminResponse | Error>((resolve) => this.waiting.push(resolve));
    this.socket.write(`${JSON.stringify(request)}\n`);
    const response = await answer;
    if (response instanceof Error) throw response;
    return response;
  }

  close(): void {
    this.socket.end();
  }
}
