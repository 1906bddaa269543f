import { getTenantContext, runAsWorkspace } from 'src/core/tenancy/tenant-context';

interface Waiter<K, V> {
  readonly key: K;
  readonly resolve: (value: V) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * One statement for the calls of one turn of the event loop (issue 16: the outbound deliveries a
 * worker starts after an inbound group commits are claimed by one statement, not one each). `load`
 * joins the calls of the caller's workspace made before the next `setImmediate`, up to `maxKeys`;
 * `run` gets their keys (in call order, in that workspace's context) and returns one value per key,
 * in the same order. A failed `run` rejects every call of its batch. Callers run outside any
 * transaction: a batch runs on its own, never inside a caller's open transaction.
 */
export class TurnBatcher<K, V> {
  private readonly pending = new Map<string, Waiter<K, V>[]>();
  private scheduled = false;
  /** Batches run and keys they held (tests, diagnostics). */
  readonly stats = { batches: 0, keys: 0 };

  constructor(
    private readonly run: (keys: readonly K[]) => Promise<readonly V[]>,
    private readonly maxKeys = 50,
  ) {}

  load(key: K): Promise<V> {
    const { workspaceId } = getTenantContext();
    return new Promise<V>((resolve, reject) => {
      const list = this.pending.get(workspaceId) ?? [];
      list.push({ key, resolve, reject });
      this.pending.set(workspaceId, list);
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batches = [...this.pending];
    this.pending.clear();
    for (const [workspaceId, waiters] of batches) {
      for (let i = 0; i < waiters.length; i += this.maxKeys) {
        const batch = waiters.slice(i, i + this.maxKeys);
        this.stats.batches++;
        this.stats.keys += batch.length;
        const keys = batch.map((w) => w.key);
        (async () => runAsWorkspace(workspaceId, () => this.run(keys)))().then(
          (values) => batch.forEach((w, j) => w.resolve(values[j] as V)),
          (error: unknown) => batch.forEach((w) => w.reject(error)),
        );
      }
    }
  }
}
