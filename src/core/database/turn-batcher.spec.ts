import { describe, expect, it } from '@jest/globals';
import { getTenantContext, runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { TurnBatcher } from './turn-batcher';

const W1 = '00000000-0000-4000-8000-000000000001';
const W2 = '00000000-0000-4000-8000-000000000002';

/** A batcher whose statement records the keys and workspace of every call and doubles each key. */
function doubling(maxKeys?: number) {
  const calls: { workspaceId: string; keys: number[] }[] = [];
  const batcher = new TurnBatcher<number, number>(async (keys) => {
    calls.push({ workspaceId: getTenantContext().workspaceId, keys: [...keys] });
    return keys.map((k) => k * 2);
  }, maxKeys);
  return { calls, batcher };
}

describe('TurnBatcher (the calls of one turn as one statement, per workspace)', () => {
  it('runs the calls made in one turn once, in call order, and gives each caller its own value', async () => {
    const { calls, batcher } = doubling();
    const values = await runAsWorkspace(W1, () => Promise.all([1, 2, 3].map((k) => batcher.load(k))));
    expect(values).toEqual([2, 4, 6]);
    expect(calls).toEqual([{ workspaceId: W1, keys: [1, 2, 3] }]);
  });

  it('keeps workspaces apart: one run per workspace, each in its own workspace', async () => {
    const { calls, batcher } = doubling();
    const a = runAsWorkspace(W1, () => batcher.load(1));
    const b = runAsWorkspace(W2, () => batcher.load(2));
    const c = runAsWorkspace(W1, () => batcher.load(3));
    expect(await Promise.all([a, b, c])).toEqual([2, 4, 6]);
    expect(calls).toEqual([
      { workspaceId: W1, keys: [1, 3] },
      { workspaceId: W2, keys: [2] },
    ]);
  });

  it('a call made after the batch started goes into the next one', async () => {
    const { calls, batcher } = doubling();
    await runAsWorkspace(W1, async () => {
      expect(await batcher.load(1)).toBe(2);
      expect(await batcher.load(2)).toBe(4);
    });
    expect(calls.map((c) => c.keys)).toEqual([[1], [2]]);
  });

  it('splits a turn larger than maxKeys', async () => {
    const { calls, batcher } = doubling(2);
    const values = await runAsWorkspace(W1, () => Promise.all([1, 2, 3, 4, 5].map((k) => batcher.load(k))));
    expect(values).toEqual([2, 4, 6, 8, 10]);
    expect(calls.map((c) => c.keys)).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('a failed run rejects every call of its batch, and the next batch runs again', async () => {
    let fail = true;
    const batcher = new TurnBatcher<number, number>(async (keys) => {
      if (fail) throw new Error('statement failed');
      return keys.map((k) => k);
    });
    await runAsWorkspace(W1, async () => {
      const results = await Promise.allSettled([batcher.load(1), batcher.load(2)]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      fail = false;
      expect(await batcher.load(3)).toBe(3);
    });
  });

  it('a run that throws before returning a promise rejects its callers (the process goes on)', async () => {
    const batcher = new TurnBatcher<number, number>(() => {
      throw new Error('synchronous failure');
    });
    await expect(runAsWorkspace(W1, () => batcher.load(1))).rejects.toThrow('synchronous failure');
  });
});
