import { Injectable, Optional } from '@nestjs/common';
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { DataSource, type EntityManager } from 'typeorm';
import { dbStatements } from '../metrics/metrics';
import { DatabaseRuntime } from './database-runtime';
import { isRetryable } from './pg-errors';
import { preparedStatements } from './prepared-statements';
import { queryRows } from './sql';

interface TxStore {
  manager: EntityManager;
  afterCommit: (() => void | Promise<void>)[];
  /** Writes deferred to the end of the transaction (`beforeCommit`), by key, in first-use order. */
  pending: Map<object, PendingWrite>;
}

interface PendingWrite {
  readonly state: unknown;
  readonly flush: (state: never) => Promise<void>;
  /** Written after the others (`beforeCommit`'s `last`). */
  readonly last: boolean;
}

/**
 * Runs every deferred write of the transaction, in first-use order (`last` ones after), and forgets
 * them. A write is forgotten just before it runs, so the ones still waiting can be reached (and
 * taken from) while the earlier ones run; what a flush defers anew runs in the next pass.
 */
async function flushPending(store: TxStore): Promise<void> {
  while (store.pending.size > 0) {
    const writes = [...store.pending.entries()].sort(([, a], [, b]) => Number(a.last) - Number(b.last));
    for (const [key, write] of writes) {
      if (store.pending.get(key) !== write) continue;
      store.pending.delete(key);
      await write.flush(write.state as never);
    }
  }
}

const txStorage = new AsyncLocalStorage<TxStore>();
let savepointCounter = 0;

/**
 * Ambient transactions: repositories pick up the open transaction's EntityManager automatically.
 * On the embedded database (one PGlite session) a query on another connection while a transaction is
 * open would wait forever, so everything inside `run` must use the transaction's manager: this makes
 * that the default instead of a convention.
 */
@Injectable()
export class TransactionHost {
  constructor(
    private readonly dataSource: DataSource,
    @Optional() private readonly runtime?: DatabaseRuntime,
  ) {}

  /** The manager to use now: the open transaction's, or the pool's. */
  get manager(): EntityManager {
    return txStorage.getStore()?.manager ?? this.dataSource.manager;
  }

  get inTransaction(): boolean {
    return txStorage.getStore() !== undefined;
  }

  /**
   * True on real PostgreSQL, where a transaction may commit without waiting for the WAL flush
   * (`synchronous_commit` off for that transaction: the inbound pipeline, issue 16) and
   * `ensureDurable` is the barrier before anything derived from it leaves the database. The embedded
   * engine commits every transaction synchronously.
   */
  get asynchronousCommit(): boolean {
    return this.runtime?.engine === 'postgres';
  }

  /**
   * A SQL condition, always true, that on PostgreSQL commits the transaction it runs in without
   * waiting for the WAL flush (`synchronous_commit` off until it ends; read at COMMIT, so it may come
   * in the transaction's last statement). For writes a database crash may take back because something
   * redoes them or they record nothing that matters. `'statement'`: for a statement on its own —
   * inside a caller's transaction it would relax the caller's commit too, so there it is plain
   * `true`. `'transaction'`: relaxes the caller's transaction (the inbound pipeline's, issue 16).
   */
  asyncCommitCondition(scope: 'statement' | 'transaction'): string {
    if (!this.asynchronousCommit || (scope === 'statement' && this.inTransaction)) return 'true';
    return `(SELECT set_config('synchronous_commit', 'off', true)) IS NOT NULL`;
  }

  /**
   * Durability barrier: returns once every transaction committed so far, asynchronous commits
   * included, is flushed to the WAL — call it before work derived from such a transaction leaves the
   * database (an LLM call, a platform send, a webhook) when no synchronous commit of the caller's
   * own comes first. Outside any transaction; a no-op on the embedded engine.
   *
   * How: a synchronous commit flushes the WAL up to its own commit record, which lies after every
   * earlier commit record. It must have written WAL: a transaction that only took an xid
   * (`SELECT pg_current_xact_id()`) commits without a flush (PostgreSQL's RecordTransactionCommit),
   * so the statement writes one tiny transactional WAL record (a logical-decoding message, any
   * wal_level, executable by any role; nothing decodes it) and commits it synchronously.
   */
  async ensureDurable(): Promise<void> {
    if (!this.asynchronousCommit) return;
    if (txStorage.getStore()) throw new Error('ensureDurable runs outside a transaction (its commit is the barrier)');
    await this.dataSource.query(`SELECT pg_logical_emit_message(true, 'sis.durable', '')`);
  }

  /**
   * Rows of one statement that must not wait for other work (webhook acknowledgements, issue 16): on
   * PostgreSQL outside a transaction it runs on the runtime's own small ack pool (ACK_POOL_SIZE), so a
   * main pool held by long requests or the pipeline cannot queue it; otherwise exactly like `queryRows`
   * on `manager` (the open transaction, or the main pool; the embedded engine has one session).
   * On the ack pool the statement is a named prepared statement (`preparedStatements`): its connections
   * run the same few texts all day, so PostgreSQL parses and plans each once per connection.
   */
  async foregroundRows<T>(sql: string, params: unknown[]): Promise<T[]> {
    const pool = this.runtime?.ackPool;
    if (!pool || txStorage.getStore()) return queryRows<T>(this.manager, sql, params);
    dbStatements.inc(); // counted like TypeORM's statements (StatementCountingLogger)
    // `pool.query` would pass a callback, which PreparingClient leaves unnamed: check a client out.
    const client = await pool.connect();
    try {
      const { rows } = await preparedStatements.run(() => client.query(sql, params));
      client.release();
      return rows as T[];
    } catch (error) {
      client.release(error as Error); // as pool.query does: a client that failed a statement is dropped
      throw error;
    }
  }

  /** Whether `apartRows` can commit beside an open transaction: PostgreSQL (the embedded engine has one session). */
  get commitsApart(): boolean {
    return !!this.runtime?.apartPool;
  }

  /**
   * Rows of one statement run as a transaction of its own on the runtime's apart pool, committed at
   * once even while the caller's transaction is open (PostgreSQL only: see `commitsApart`). It sees only
   * committed data, not the open transaction's. Run again (up to 3 times in all) on a serialization
   * failure or deadlock: nothing of a failed attempt stays.
   */
  async apartRows<T>(sql: string, params: unknown[]): Promise<T[]> {
    const pool = this.runtime?.apartPool;
    if (!pool) throw new Error('No apart pool: statements commit apart on PostgreSQL only');
    for (let attempt = 1; ; attempt++) {
      dbStatements.inc(); // counted like TypeORM's statements (StatementCountingLogger)
      try {
        return (await pool.query(sql, params)).rows as T[];
      } catch (error) {
        if (attempt >= 3 || !isRetryable(error)) throw error;
      }
    }
  }

  /** Runs `fn` in a transaction (or joins the open one). After-commit hooks run once the outermost commits. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (txStorage.getStore()) return fn();
    const hooks: TxStore['afterCommit'] = [];
    const result = await this.dataSource.transaction((manager) => {
      const store: TxStore = { manager, afterCommit: hooks, pending: new Map() };
      return txStorage.run(store, async () => {
        const value = await fn();
        await flushPending(store);
        return value;
      });
    });
    for (const hook of hooks) await hook();
    return result;
  }

  /**
   * `run(fn)`, run again as a whole (up to `attempts` times in all) when it fails with a serialization
   * failure or deadlock (40001 / 40P01). Inside an open transaction it only joins it: a failed
   * statement has aborted the outer transaction, so only its owner can retry.
   */
  async runWithRetry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {
    if (txStorage.getStore()) return fn();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.run(fn);
      } catch (error) {
        if (attempt >= attempts || !isRetryable(error)) throw error;
      }
    }
  }

  /**
   * Inside an open transaction: runs `fn` under a SAVEPOINT, so when it throws only its own work is
   * rolled back and the transaction goes on (PostgreSQL would otherwise abort it). Without an open
   * transaction: just `fn`. Used where one failing step must not sink the rest (automation actions).
   */
  async savepoint<T>(fn: () => Promise<T>): Promise<T> {
    const store = txStorage.getStore();
    if (!store) return fn();
    const name = `sp_${++savepointCounter}`;
    // Deferred writes made before the savepoint are written before it, so what is pending when `fn`
    // fails is exactly `fn`'s own and is dropped with the rest of its work.
    await flushPending(store);
    await store.manager.query(`SAVEPOINT ${name}`);
    try {
      const result = await fn();
      await flushPending(store);
      await store.manager.query(`RELEASE SAVEPOINT ${name}`);
      return result;
    } catch (error) {
      store.pending.clear();
      await store.manager.query(`ROLLBACK TO SAVEPOINT ${name}`);
      throw error;
    }
  }

  /**
   * A write deferred to the end of the open transaction (issue 16 item 3: one statement for what
   * several steps of a transaction write to the same table — the pipeline group's outbox rows).
   * Inside a transaction: the transaction's state for `key` (made by `init` on first use), and
   * `flush(state)` runs once, inside the transaction, after its work and before COMMIT (before a
   * SAVEPOINT too; pending writes of a savepoint that rolls back are dropped with it). Outside any
   * transaction: null — the caller writes at once. Nothing in the transaction can read a deferred
   * row before the flush: use it only for rows the transaction itself never reads back. `last`: runs
   * after the other deferred writes of the same flush (a write they may take entries from first:
   * the conversations' inbound stamps, which a reply's own statement writes when it has one).
   */
  beforeCommit<S>(
    key: object,
    init: () => S,
    flush: (state: S) => Promise<void>,
    options: { readonly last?: boolean } = {},
  ): S | null {
    const store = txStorage.getStore();
    if (!store) return null;
    const known = store.pending.get(key);
    if (known) return known.state as S;
    const state = init();
    store.pending.set(key, { state, flush: flush as (state: never) => Promise<void>, last: options.last === true });
    return state;
  }

  /**
   * Runs the open transaction's deferred writes (`beforeCommit`) now, in first-use order, instead of
   * just before COMMIT; later ones start afresh. For a step that must see them written, or that needs
   * them written before its own work (the pipeline group's rounds: a sender's next message is stored
   * after the AI reply to its previous one). Outside a transaction: nothing to do.
   */
  async flushPending(): Promise<void> {
    const store = txStorage.getStore();
    if (store) await flushPending(store);
  }

  /**
   * Defers `fn` until the open transaction commits (runs at once when none is open). Rolled back →
   * never runs. The hook runs in the async context that registered it (tenant, request id, an
   * automation's causation for its loop guard), outside the finished transaction.
   */
  async afterCommit(fn: () => void | Promise<void>): Promise<void> {
    const store = txStorage.getStore();
    if (store) {
      // A plain resource, not `AsyncResource.bind`: bind also defines a deprecated `asyncResource`
      // getter and setter on every bound function (two `util.deprecate` wrappers per hook, ~1.5 % of
      // the pipeline worker's CPU, session 24). Same context capture, same behaviour.
      const scope = new AsyncResource('TransactionAfterCommit');
      store.afterCommit.push(() => scope.runInAsyncScope(() => txStorage.exit(fn)));
    } else await fn();
  }
}
