import { AsyncResource } from 'node:async_hooks';

/** One event to store RECEIVED (the repository's insert row, plus its workspace). */
export interface AckRow<Row> {
  readonly workspaceId: string;
  readonly row: Row;
}

/**
 * Group commit for webhook acknowledgements (issue 16): concurrent requests share one multi-row
 * INSERT per workspace instead of one statement each. A request is answered only after the
 * statement holding its row has committed, so nothing acknowledged can be lost.
 *
 * Batching is natural, not timed: while fewer than `maxInFlight` statements are running, a row is
 * written at once (no added latency at low load); otherwise it waits for the next flush with every
 * other row that arrived meanwhile, up to `maxRows` a statement. Flushes run outside the caller's
 * async context (no request's transaction or tenant leaks into another's insert).
 */
export class GroupCommit<Row> {
  private buffer: { item: AckRow<Row>; resolve: (id: string) => void; reject: (error: unknown) => void }[] = [];
  private inFlight = 0;
  private readonly scope = new AsyncResource('InboundAckGroupCommit');

  constructor(
    /** Inserts rows of ONE workspace in one statement and returns their ids in order. */
    private readonly insert: (workspaceId: string, rows: readonly Row[]) => Promise<string[]>,
    private readonly maxRows = 100,
    private readonly maxInFlight = 2,
  ) {}

  /** Stores rows (possibly of several workspaces) and resolves with their ids, in order, once durable. */
  store(items: readonly AckRow<Row>[]): Promise<string[]> {
    if (items.length === 1) return this.storeOne(items[0]!).then((id) => [id]);
    const promises = items.map(
      (item) => new Promise<string>((resolve, reject) => this.buffer.push({ item, resolve, reject })),
    );
    this.scope.runInAsyncScope(this.pumpNow);
    return Promise.all(promises);
  }

  /** One row (the usual webhook: one event): `store` without a promise per row plus one for all. */
  storeOne(item: AckRow<Row>): Promise<string> {
    const stored = new Promise<string>((resolve, reject) => this.buffer.push({ item, resolve, reject }));
    this.scope.runInAsyncScope(this.pumpNow);
    return stored;
  }

  private readonly pumpNow = (): void => this.pump();

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.maxRows);
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.scope.runInAsyncScope(this.pumpNow);
      });
    }
  }

  private async flush(batch: typeof this.buffer): Promise<void> {
    const byWorkspace = new Map<string, typeof batch>();
    for (const entry of batch) {
      const group = byWorkspace.get(entry.item.workspaceId);
      if (group) group.push(entry);
      else byWorkspace.set(entry.item.workspaceId, [entry]);
    }
    await Promise.all(
      [...byWorkspace].map(async ([workspaceId, group]) => {
        try {
          const ids = await this.insert(
            workspaceId,
            group.map((g) => g.item.row),
          );
          group.forEach((g, i) => g.resolve(ids[i]!));
        } catch (error) {
          if (group.length === 1) {
            group[0]!.reject(error);
            return;
          }
          // One bad row must not fail its neighbours: write them one by one.
          await Promise.all(
            group.map((g) =>
              this.insert(workspaceId, [g.item.row]).then(
                (ids) => g.resolve(ids[0]!),
                (e: unknown) => g.reject(e),
              ),
            ),
          );
        }
      }),
    );
  }
}
