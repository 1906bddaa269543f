import { AsyncLocalStorage } from 'node:async_hooks';
import { Client, Query } from 'pg';

/**
 * Named prepared statements for hot, repeated work (issue 16 item 3).
 *
 * A statement sent with a `name` is parsed and planned by PostgreSQL once per connection; later
 * executions send only Bind/Execute and reuse the plan cache (custom plans for the first five, then
 * a generic plan when it is not worse: PostgreSQL's `plan_cache_mode = auto`). The inbound pipeline
 * sends the same dozen statement texts for every message, so it runs inside `preparedStatements.run`
 * and its parameterised statements get names; everything else stays unnamed (no server memory for
 * one-off texts, no generic plans for ad-hoc queries).
 *
 * - Names come from a per-process registry keyed by the exact text (`sis_<n>`), so a name always
 *   means one text in this process, on every pooled connection (pg parses it once per connection).
 *   The registry is capped; texts beyond the cap run unnamed.
 * - Tenancy is unchanged: a statement's text is the same for every workspace, the workspace id is a
 *   bound parameter ($1 in scoped SQL), never part of the prepared text.
 * - `cached plan must not change result type` (a column added to a table by a migration while the
 *   process runs, for a `RETURNING *` / `SELECT *` statement): the error is thrown as usual (the event
 *   is retried), and the registry starts a new generation of names, so the retry parses afresh.
 * - Embedded engine: installed too (session 23; before, never). Its wire server runs every pool
 *   client on the one PGlite session, which outlives the clients, so it gives each connection its own
 *   namespace there (a per-connection prefix) and deallocates a connection's statements when it
 *   closes — as a real server does at the end of a session. Parsing and planning were more than half
 *   of PGlite's CPU per pipeline message (docs/performance.md, "Session 23: embedded pipeline").
 */
export class PreparedStatements {
  private readonly scope = new AsyncLocalStorage<true>();
  private readonly names = new Map<string, string>();
  private generation = 0;
  private next = 0;

  constructor(private readonly capacity = 512) {}

  /** Runs `fn` with its parameterised statements named (when the pool's client is a PreparingClient). */
  run<T>(fn: () => T): T {
    return this.scope.run(true, fn);
  }

  get active(): boolean {
    return this.scope.getStore() === true;
  }

  /** The name for this text now (null: not in a prepared scope, or the registry is full). */
  nameFor(text: string): string | null {
    if (!this.active) return null;
    const known = this.names.get(text);
    if (known) return known;
    if (this.names.size >= this.capacity) return null;
    const name = `sis_${this.generation}_${++this.next}`;
    this.names.set(text, name);
    return name;
  }

  /** A prepared statement's result type changed under it: every text gets a fresh name. */
  invalidate(): void {
    this.generation++;
    this.names.clear();
  }

  /** Distinct texts named so far (diagnostics, tests). */
  get size(): number {
    return this.names.size;
  }
}

/** The process's registry (one per process, like the pool it serves). */
export const preparedStatements = new PreparedStatements();

/** SQLSTATE 0A000 with this message: a cached plan's result columns changed (DDL while running). */
function isResultTypeChange(error: unknown): boolean {
  const e = error as { code?: string; message?: string } | null;
  return e?.code === '0A000' && /cached plan must not change result type/.test(e.message ?? '');
}

/**
 * The `pg` client the PostgreSQL pool uses (`extra.Client`): a text query with parameters, sent in a
 * prepared scope, goes out as a named statement. Everything else passes through untouched.
 */
export class PreparingClient extends Client {
  // pg's overloads (callbacks, streams, submittables) are passed through as they are.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(config: any, values?: any, callback?: any): any {
    if (typeof config === 'string' && Array.isArray(values) && values.length > 0 && callback === undefined) {
      const name = preparedStatements.nameFor(config);
      if (name) {
        // A Query made from the text (not a `{ name, text, values }` config, which pg copies property
        // descriptor by descriptor for every statement: ~1.5 % of the pipeline worker's CPU, session
        // 24), named afterwards, settled through its callback as pg's own promise would be.
        return new Promise<unknown>((resolve, reject) => {
          const query = new Query(config, values as unknown[], (error, result) => {
            if (!error) return resolve(result);
            Error.captureStackTrace(error); // as pg does: a stack that leads back to the caller
            if (isResultTypeChange(error)) preparedStatements.invalidate();
            reject(error);
          });
          (query as Query & { name: string }).name = name;
          super.query(query);
        });
      }
    }
    return super.query(config, values, callback);
  }
}
