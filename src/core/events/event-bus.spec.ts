import { describe, expect, it } from '@jest/globals';
import type { DataSource, EntityManager } from 'typeorm';
import { TransactionHost } from 'src/core/database/transaction-host';
import { EventBus } from './event-bus';

/**
 * A data source that records statements instead of sending them: `transaction(cb)` runs `cb` with a
 * manager whose statements are logged between BEGIN and COMMIT (ROLLBACK when `cb` throws).
 */
function recordingDataSource(): { dataSource: DataSource; log: { sql: string; params: unknown[] }[] } {
  const log: { sql: string; params: unknown[] }[] = [];
  const manager = {
    query: (sql: string, params: unknown[] = []) => {
      log.push({ sql: sql.replace(/\s+/g, ' ').trim(), params });
      return Promise.resolve([]);
    },
  } as unknown as EntityManager;
  const dataSource = {
    manager,
    transaction: async (cb: (m: EntityManager) => Promise<unknown>) => {
      log.push({ sql: 'BEGIN', params: [] });
      try {
        const result = await cb(manager);
        log.push({ sql: 'COMMIT', params: [] });
        return result;
      } catch (error) {
        log.push({ sql: 'ROLLBACK', params: [] });
        throw error;
      }
    },
  } as unknown as DataSource;
  return { dataSource, log };
}

const W1 = '00000000-0000-4000-8000-000000000001';
const W2 = '00000000-0000-4000-8000-000000000002';

function outboxRows(entry: { params: unknown[] }): { id: string; type: string; data: unknown; created_at: string }[] {
  return JSON.parse(entry.params[1] as string) as { id: string; type: string; data: unknown; created_at: string }[];
}

describe('EventBus outbox rows in a transaction (one statement per workspace, before COMMIT)', () => {
  it('writes every event a transaction published with one statement at its end, listeners after commit', async () => {
    const { dataSource, log } = recordingDataSource();
    const tx = new TransactionHost(dataSource);
    const bus = new EventBus(tx);
    const heard: string[] = [];
    bus.subscribe('*', (event) => {
      heard.push(`${event.name}:${log.at(-1)?.sql}`);
    });
    await tx.run(async () => {
      await bus.publish('conversation.created', W1, { n: 1 } as never);
      await bus.publish('message.received', W1, { n: 2 } as never);
      await manager(tx).query('UPDATE something', []);
      await bus.publish('message.received', W1, { n: 3 } as never);
    });
    const sql = log.map((e) => e.sql);
    expect(sql[0]).toBe('BEGIN');
    expect(sql[1]).toBe('UPDATE something');
    expect(sql[2]).toMatch(/^INSERT INTO event_outbox/);
    expect(sql[3]).toBe('COMMIT');
    expect(sql).toHaveLength(4);
    expect(log[2]!.params[0]).toBe(W1);
    const rows = outboxRows(log[2]!);
    expect(rows.map((r) => [r.type, r.data])).toEqual([
      ['conversation.created', { n: 1 }],
      ['message.received', { n: 2 }],
      ['message.received', { n: 3 }],
    ]);
    expect(new Set(rows.map((r) => r.id)).size).toBe(3);
    // Listeners run after COMMIT, in publication order.
    expect(heard).toEqual(['conversation.created:COMMIT', 'message.received:COMMIT', 'message.received:COMMIT']);
  });

  it('flushPending writes what is pending at once; what is published afterwards waits for COMMIT', async () => {
    const { dataSource, log } = recordingDataSource();
    const tx = new TransactionHost(dataSource);
    const bus = new EventBus(tx);
    await tx.run(async () => {
      await bus.publish('message.received', W1, { n: 1 } as never);
      await tx.flushPending();
      await manager(tx).query('UPDATE something', []);
      await bus.publish('message.received', W1, { n: 2 } as never);
    });
    const sql = log.map((e) => e.sql.slice(0, 24));
    expect(sql).toEqual([
      'BEGIN',
      'INSERT INTO event_outbox',
      'UPDATE something',
      'INSERT INTO event_outbox',
      'COMMIT',
    ]);
    expect(outboxRows(log[1]!).map((r) => r.data)).toEqual([{ n: 1 }]);
    expect(outboxRows(log[3]!).map((r) => r.data)).toEqual([{ n: 2 }]);
  });

  it('one statement per workspace, each binding its own workspace id', async () => {
    const { dataSource, log } = recordingDataSource();
    const tx = new TransactionHost(dataSource);
    const bus = new EventBus(tx);
    await tx.run(async () => {
      await bus.publish('message.received', W1, { n: 1 } as never);
      await bus.publish('message.received', W2, { n: 2 } as never);
    });
    const inserts = log.filter((e) => e.sql.startsWith('INSERT INTO event_outbox'));
    expect(inserts.map((e) => e.params[0])).toEqual([W1, W2]);
    expect(outboxRows(inserts[1]!).map((r) => r.data)).toEqual([{ n: 2 }]);
  });

  it('keeps the data as it was when published (later changes to the object are not written)', async () => {
    const { dataSource, log } = recordingDataSource();
    const tx = new TransactionHost(dataSource);
    const bus = new EventBus(tx);
    const data = { status: 'OPEN' };
    await tx.run(async () => {
      await bus.publish('message.received', W1, data as never);
      data.status = 'CHANGED';
    });
    const insert = log.find((e) => e.sql.startsWith('INSERT INTO event_outbox'))!;
    expect(outboxRows(insert)[0]!.data).toEqual({ status: 'OPEN' });
  });

  it('a rolled-back transaction writes no outbox row and tells no listener', async () => {
    const { dataSource, log } = recordingDataSource();
    const tx = new TransactionHost(dataSource);
    const bus = new EventBus(tx);
    let heard = 0;
    bus.subscribe('*', () => void heard++);
    await expect(
      tx.run(async () => {
        await bus.publish('message.received', W1, { n: 1 } as never);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(log.map((e) => e.sql)).toEqual(['BEGIN', 'ROLLBACK']);
    expect(heard).toBe(0);
  });

  it('a savepoint that rolls back drops its own pending rows; rows from before it are written', async () => {
    const { dataSource, log } = recordingDataSource();
    const tx = new TransactionHost(dataSource);
    const bus = new EventBus(tx);
    await tx.run(async () => {
      await bus.publish('message.received', W1, { n: 'before' } as never);
      await tx
        .savepoint(async () => {
          await bus.publish('message.received', W1, { n: 'inside' } as never);
          throw new Error('action failed');
        })
        .catch(() => undefined);
      await tx.savepoint(async () => {
        await bus.publish('message.received', W1, { n: 'kept' } as never);
      });
    });
    const sql = log.map((e) => e.sql.replace(/sp_\d+/, 'sp'));
    expect(sql).toEqual([
      'BEGIN',
      expect.stringMatching(/^INSERT INTO event_outbox/), // 'before', written ahead of the savepoint
      'SAVEPOINT sp',
      'ROLLBACK TO SAVEPOINT sp',
      'SAVEPOINT sp',
      expect.stringMatching(/^INSERT INTO event_outbox/), // 'kept', inside its savepoint
      'RELEASE SAVEPOINT sp',
      'COMMIT',
    ]);
    const written = log.filter((e) => e.sql.startsWith('INSERT INTO event_outbox')).flatMap((e) => outboxRows(e));
    expect(written.map((r) => r.data)).toEqual([{ n: 'before' }, { n: 'kept' }]);
  });

  it('outside a transaction writes at once and tells listeners at once', async () => {
    const { dataSource, log } = recordingDataSource();
    const tx = new TransactionHost(dataSource);
    const bus = new EventBus(tx);
    let heard = 0;
    bus.subscribe('message.received', () => void heard++);
    await bus.publish('message.received', W1, { n: 1 } as never);
    expect(log.map((e) => e.sql)).toEqual([expect.stringMatching(/^INSERT INTO event_outbox/)]);
    expect(heard).toBe(1);
  });
});

function manager(tx: TransactionHost): EntityManager {
  return tx.manager;
}
