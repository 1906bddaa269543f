import { describe, expect, it } from '@jest/globals';
import type { TransactionHost } from 'src/core/database/transaction-host';
import { getTenantContext, runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { AutomationRunLog } from './automation-run-log.service';
import type { AutomationRunsRepository, NewRun, SkippedRuns } from './automation-runs.repository';

/** A transaction host whose `afterCommit` hooks run when the test says the transaction committed. */
class FakeTx {
  hooks: (() => void | Promise<void>)[] = [];
  afterCommit(fn: () => void | Promise<void>): Promise<void> {
    this.hooks.push(fn);
    return Promise.resolve();
  }
  async commit(): Promise<void> {
    const hooks = this.hooks;
    this.hooks = [];
    for (const hook of hooks) await hook();
  }
}

function setUp() {
  const tx = new FakeTx();
  const inTransaction: NewRun[][] = [];
  const skippedWrites: { workspaceId: string; events: SkippedRuns[] }[] = [];
  let release: (() => void) | null = null;
  const repository = {
    record: async (runs: readonly NewRun[]) => {
      if (runs.length) inTransaction.push([...runs]);
    },
    recordSkipped: async (events: readonly SkippedRuns[]) => {
      skippedWrites.push({ workspaceId: getTenantContext().workspaceId, events: [...events] });
      // The first write is held until the test lets it go: later commits gather meanwhile.
      if (skippedWrites.length === 1) await new Promise<void>((r) => (release = r));
    },
  };
  const log = new AutomationRunLog(tx as unknown as TransactionHost, repository as unknown as AutomationRunsRepository);
  return { tx, log, inTransaction, skippedWrites, release: () => release?.() };
}

const skipped = (ids: string[], conversationId = 'c1'): SkippedRuns => ({
  automationIds: ids,
  trigger: 'message.received',
  conversationId,
  at: new Date('2026-11-26T12:00:00Z'),
});

const matched: NewRun = {
  automationId: 'a1',
  trigger: 'message.received',
  conversationId: 'c1',
  matched: true,
  status: 'SUCCESS',
  actions: [],
  durationMs: 1,
};

describe('AutomationRunLog (DESIGN §8 run log)', () => {
  it('writes matched runs in the transaction and SKIPPED runs only after its commit', async () => {
    const { tx, log, inTransaction, skippedWrites } = setUp();
    await runAsWorkspace('w1', () => log.record([matched], [skipped(['a2', 'a3'])]));
    expect(inTransaction).toEqual([[matched]]);
    expect(skippedWrites).toEqual([]);
    await tx.commit();
    expect(skippedWrites).toEqual([{ workspaceId: 'w1', events: [skipped(['a2', 'a3'])] }]);
  });

  it('a transaction that never commits leaves no SKIPPED run; an event without one writes nothing after it', async () => {
    const { tx, log, skippedWrites } = setUp();
    await runAsWorkspace('w1', () => log.record([], [skipped(['a2'])]));
    tx.hooks = []; // rolled back: its after-commit hooks are dropped
    await runAsWorkspace('w1', () => log.record([matched], [skipped([])]));
    await tx.commit();
    await log.drain();
    expect(skippedWrites).toEqual([]);
  });

  it('events committed while a write runs share the next statement, one per workspace; drain waits for all', async () => {
    const { tx, log, skippedWrites, release } = setUp();
    await runAsWorkspace('w1', () => log.record([], [skipped(['a1'], 'first')]));
    await tx.commit();
    expect(skippedWrites).toHaveLength(1);
    for (const [workspaceId, conversationId] of [
      ['w1', 'c2'],
      ['w2', 'c3'],
      ['w1', 'c4'],
    ] as const) {
      await runAsWorkspace(workspaceId, () => log.record([], [skipped(['a1', 'a2'], conversationId)]));
      await tx.commit();
    }
    expect(skippedWrites).toHaveLength(1);
    release();
    await log.drain();
    expect(skippedWrites.slice(1)).toEqual([
      { workspaceId: 'w1', events: [skipped(['a1', 'a2'], 'c2'), skipped(['a1', 'a2'], 'c4')] },
      { workspaceId: 'w2', events: [skipped(['a1', 'a2'], 'c3')] },
    ]);
  });
});
