import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Foreground work on the database session (issue 16): webhook acknowledgements. On the embedded
 * engine the service has ONE session, shared by the acks and the pipeline running in the same
 * process; acks are what platforms time, so they go first:
 *   - a connection request made in the foreground is served before background ones waiting for the
 *     session (`prioritisePool`), so an ack waits for at most the statement or transaction holding
 *     the session now, not for every pipeline transaction queued behind it;
 *   - background jobs yield before they start (`yieldToForeground`): a pipeline event does not begin
 *     while acks are being stored, for at most a bounded wait, so the pipeline cannot starve.
 * On PostgreSQL (a pool of sessions, the pipeline in worker processes) nothing here is needed.
 */
export class SessionPriority {
  private readonly storage = new AsyncLocalStorage<true>();
  private active = 0;
  private waiters: (() => void)[] = [];

  /** Runs `fn` as foreground work. */
  async foreground<T>(fn: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await this.storage.run(true, fn);
    } finally {
      this.active--;
      if (this.active === 0) this.wake();
    }
  }

  /** Runs `fn` as background work even when called from foreground work (jobs it starts). */
  background<T>(fn: () => T): T {
    return this.storage.exit(fn);
  }

  get inForeground(): boolean {
    return this.storage.getStore() === true;
  }

  /** Foreground operations running now. */
  get busy(): boolean {
    return this.active > 0;
  }

  /** Resolves once no foreground work runs, or after `maxWaitMs` whatever happens. */
  yieldToForeground(maxWaitMs: number): Promise<void> {
    if (this.active === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, maxWaitMs);
      const waiter = (): void => done();
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.waiters.push(waiter);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}

/** The process's one instance (the pool wrapper is set up before Nest's container exists). */
export const sessionPriority = new SessionPriority();

interface PgPoolInternals {
  connect(...args: unknown[]): unknown;
  _pendingQueue?: unknown[];
}

/**
 * Makes `pool.connect()` calls made in the foreground jump ahead of background requests already
 * waiting (first come first served among foreground ones). Relies on pg-pool's pending queue; when
 * a pg-pool version lacks it, connections are simply served in order (nothing breaks).
 */
export function prioritisePool(pool: unknown, priority: SessionPriority = sessionPriority): void {
  const target = pool as PgPoolInternals;
  if (!Array.isArray(target._pendingQueue)) return;
  const foregroundItems = new WeakSet<object>();
  const connect = target.connect.bind(target);
  target.connect = (...args: unknown[]) => {
    const queue = target._pendingQueue;
    const before = queue?.length ?? 0;
    const result = connect(...args);
    if (priority.inForeground && queue && queue.length === before + 1) {
      const item = queue.pop() as object;
      foregroundItems.add(item);
      let at = 0;
      while (at < queue.length && foregroundItems.has(queue[at] as object)) at++;
      queue.splice(at, 0, item);
    }
    return result;
  };
}
