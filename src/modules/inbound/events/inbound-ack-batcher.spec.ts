import { describe, expect, it } from '@jest/globals';
import { GroupCommit } from './inbound-ack-batcher';

describe('GroupCommit (webhook acks share INSERTs)', () => {
  it('answers each caller with its own ids, in order, and batches rows that arrive while statements run', async () => {
    const statements: { workspaceId: string; rows: string[] }[] = [];
    const commit = new GroupCommit<string>(
      async (workspaceId, rows) => {
        statements.push({ workspaceId, rows: [...rows] });
        await new Promise((r) => setTimeout(r, 5));
        return rows.map((r) => `id-${r}`);
      },
      100,
      1,
    );
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        commit.store([
          { workspaceId: i % 2 ? 'w1' : 'w2', row: `r${i}` },
          { workspaceId: 'w1', row: `s${i}` },
        ]),
      ),
    );
    results.forEach((ids, i) => expect(ids).toEqual([`id-r${i}`, `id-s${i}`]));
    // The first caller's rows go alone; the other nine callers' rows share the next flush (one INSERT per workspace).
    expect(statements.length).toBeLessThanOrEqual(4);
    expect(statements.flatMap((s) => s.rows).sort()).toHaveLength(20);
  });

  it('a bad row fails only its own caller', async () => {
    const commit = new GroupCommit<string>(
      async (_workspaceId, rows) => {
        if (rows.includes('bad')) throw new Error('constraint');
        return rows.map((r) => `id-${r}`);
      },
      100,
      1,
    );
    const first = commit.store([{ workspaceId: 'w', row: 'a' }]);
    const bad = commit.store([{ workspaceId: 'w', row: 'bad' }]);
    const good = commit.store([{ workspaceId: 'w', row: 'b' }]);
    await expect(first).resolves.toEqual(['id-a']);
    await expect(bad).rejects.toThrow('constraint');
    await expect(good).resolves.toEqual(['id-b']);
  });
});
