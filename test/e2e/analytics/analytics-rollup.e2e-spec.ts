import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DataSource, type QueryRunner } from 'typeorm';
import type { TestApp } from '../../utils/test-app';
import { createTestApp } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';
import { sql } from '../inbox/inbox-helpers';

/**
 * Message counts come from a 15-minute rollup plus the raw messages at the window's edges
 * (docs/analytics.md). These figures are counted by hand from the rows written below, in a zone
 * whose offset is not a whole hour (Asia/Kolkata, +05:30: local midnight is 18:30 UTC), and after
 * every kind of change the rollup has to follow: a conversation moved to another queue, a message
 * re-dated, a message deleted, a contact deleted (its conversations and messages cascade).
 */
describe('Analytics message counts (rollup)', () => {
  let t: TestApp;
  let admin: Session;
  let ws: string;
  let ch: string;
  let q1: string;
  let q2: string;
  let contact: string;
  const conv: Record<string, string> = {};
  const msg: Record<string, string> = {};
  // Local days May 1, 2, 3 (Asia/Kolkata).
  const WINDOW = { from: '2026-04-30T18:30:00.000Z', to: '2026-05-03T18:30:00.000Z' };
  const DAYS = ['2026-04-30T18:30:00.000Z', '2026-05-01T18:30:00.000Z', '2026-05-02T18:30:00.000Z'];

  const conversation = async (key: string, queue: string, contactId: string, created: string): Promise<void> => {
    conv[key] = randomUUID();
    await sql(
      t,
      `INSERT INTO conversations (id, workspace_id, contact_id, channel_id, channel_type, contact_external_id, status, queue_id, created_at)
       VALUES ($1, $2, $3, $4, 'CUSTOM', $5, 'OPEN', $6, $7)`,
      [conv[key], ws, contactId, ch, `ext-${key}-${randomUUID()}`, queue, created],
    );
  };
  const message = async (key: string, c: string, direction: string, sender: string, at: string): Promise<void> => {
    const rows = await sql<{ id: string }>(
      t,
      `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status, created_at)
       VALUES ($1, $2, $3, $4, $5, 'TEXT', 'x', $6, $7) RETURNING id`,
      [ws, conv[c], ch, direction, sender, direction === 'INBOUND' ? 'RECEIVED' : 'SENT', at],
    );
    msg[key] = rows[0]!.id;
  };
  const inbox = async (extra: Record<string, string> = {}) =>
    (
      await t.http
        .get('/analytics/inbox')
        .query({ ...WINDOW, interval: 'DAY', ...extra })
        .set(admin.headers)
        .expect(200)
    ).body as { series: { bucket: string; inbound: number; outbound: number }[]; byChannel: unknown[] };
  const messages = async (query: Record<string, string>) =>
    (await t.http.get('/analytics/summary').query(query).set(admin.headers).expect(200)).body.messages as {
      inbound: number;
      outbound: number;
    };

  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT: '100000' } });
    admin = await signupWorkspace(t, 'Rollup');
    ws = admin.workspaceId;
    await t.http.put('/workspace').set(admin.headers).send({ timezone: 'Asia/Kolkata' }).expect(200);
    q1 = (await sql<{ id: string }>(t, `SELECT id FROM queues WHERE workspace_id = $1 AND is_default`, [ws]))[0]!.id;
    q2 = (await t.http.post('/queues').set(admin.headers).send({ name: 'Second line' }).expect(201)).body.id as string;
    ch = (
      await sql<{ id: string }>(
        t,
        `INSERT INTO channel_connections (workspace_id, type, name) VALUES ($1, 'CUSTOM', 'Shop') RETURNING id`,
        [ws],
      )
    )[0]!.id;
    contact = (
      await sql<{ id: string }>(t, `INSERT INTO contacts (workspace_id, name) VALUES ($1, 'A') RETURNING id`, [ws])
    )[0]!.id;
    await conversation('X', q1, contact, '2026-05-01T18:00:00Z');
    await conversation('Y', q1, contact, '2026-05-02T18:00:00Z');
    await message('x1', 'X', 'INBOUND', 'CONTACT', '2026-05-01T18:29:00Z'); // local May 1 23:59
    await message('x2', 'X', 'OUTBOUND', 'AI', '2026-05-01T18:31:00Z'); // local May 2 00:01
    await message('x3', 'X', 'INBOUND', 'CONTACT', '2026-05-02T10:07:30Z'); // local May 2 15:37:30
    await message('y1', 'Y', 'INBOUND', 'CONTACT', '2026-05-02T18:29:59.999Z'); // local May 2 23:59:59.999
    await message('y2', 'Y', 'OUTBOUND', 'AGENT', '2026-05-02T18:30:00Z'); // local May 3 00:00
  }, 180_000);
  afterAll(async () => {
    await t.close();
  });

  it('buckets into local days of a +05:30 zone, to the millisecond at the day boundary', async () => {
    const body = await inbox();
    expect(body.series.map((b) => [b.bucket, b.inbound, b.outbound])).toEqual([
      [DAYS[0], 1, 0],
      [DAYS[1], 2, 1],
      [DAYS[2], 0, 1],
    ]);
    expect(body.byChannel).toEqual([{ channelType: 'CUSTOM', conversations: 2, inbound: 3 }]);
    const ai = await t.http.get('/analytics/ai').query(WINDOW).set(admin.headers).expect(200);
    expect(ai.body.replies).toBe(1);
    expect(ai.body.series.map((b: { replies: number }) => b.replies)).toEqual([0, 1, 0]);
  });

  it('counts windows that start or end inside a 15-minute slot exactly', async () => {
    expect(await messages({ from: '2026-05-02T10:07:00Z', to: '2026-05-02T10:08:00Z' })).toEqual({
      inbound: 1,
      outbound: 0,
    });
    expect(await messages({ from: '2026-05-02T10:07:30.001Z', to: '2026-05-02T10:08:00Z' })).toEqual({
      inbound: 0,
      outbound: 0,
    });
    expect(await messages({ from: '2026-05-01T18:29:00Z', to: '2026-05-01T18:31:00.001Z' })).toEqual({
      inbound: 1,
      outbound: 1,
    });
    expect(await messages({ from: '2026-05-01T18:29:00.001Z', to: '2026-05-02T18:30:00Z' })).toEqual({
      inbound: 2,
      outbound: 1,
    });
    expect(await messages({ from: '2026-05-01T18:29:00.001Z', to: '2026-05-02T18:30:00.001Z' })).toEqual({
      inbound: 2,
      outbound: 2,
    });
  });

  it('follows a conversation moved to another queue', async () => {
    expect(await messages({ ...WINDOW, queueId: q2 })).toEqual({ inbound: 0, outbound: 0 });
    await sql(t, `UPDATE conversations SET queue_id = $3 WHERE workspace_id = $1 AND id = $2`, [ws, conv.Y, q2]);
    expect(await messages({ ...WINDOW, queueId: q2 })).toEqual({ inbound: 1, outbound: 1 });
    expect(await messages({ ...WINDOW, queueId: q1 })).toEqual({ inbound: 2, outbound: 1 });
    expect(await messages(WINDOW)).toEqual({ inbound: 3, outbound: 2 });
  });

  it('follows a message re-dated and a message deleted', async () => {
    await sql(t, `UPDATE messages SET created_at = '2026-05-03T10:00:00Z' WHERE workspace_id = $1 AND id = $2`, [
      ws,
      msg.x3,
    ]);
    let body = await inbox();
    expect(body.series.map((b) => [b.inbound, b.outbound])).toEqual([
      [1, 0],
      [1, 1],
      [1, 1],
    ]);
    await sql(t, `DELETE FROM messages WHERE workspace_id = $1 AND id = $2`, [ws, msg.x1]);
    body = await inbox();
    expect(body.series.map((b) => [b.inbound, b.outbound])).toEqual([
      [0, 0],
      [1, 1],
      [1, 1],
    ]);
  });

  it('follows a deleted contact (conversations and messages cascade)', async () => {
    const other = (
      await sql<{ id: string }>(t, `INSERT INTO contacts (workspace_id, name) VALUES ($1, 'B') RETURNING id`, [ws])
    )[0]!.id;
    await conversation('Z', q2, other, '2026-05-02T05:00:00Z');
    await message('z1', 'Z', 'INBOUND', 'CONTACT', '2026-05-02T05:00:00Z');
    await message('z2', 'Z', 'OUTBOUND', 'AI', '2026-05-02T05:20:00Z');
    expect(await messages({ ...WINDOW, queueId: q2 })).toEqual({ inbound: 2, outbound: 2 });
    await sql(t, `DELETE FROM contacts WHERE workspace_id = $1 AND id = $2`, [ws, other]);
    expect(await messages({ ...WINDOW, queueId: q2 })).toEqual({ inbound: 1, outbound: 1 });
    expect(await messages(WINDOW)).toEqual({ inbound: 2, outbound: 2 });
    const ai = await t.http.get('/analytics/ai').query(WINDOW).set(admin.headers).expect(200);
    expect(ai.body.replies).toBe(1);
  });

  // Two pipeline transactions storing messages of one channel and queue in the same 15-minute slot must
  // not queue behind each other's slot row (each session writes its own shard; the embedded engine
  // has one session, so PostgreSQL only).
  (process.env.DATABASE_URL ? it : it.skip)(
    'lets two sessions store messages of the same slot at once, and sums their shards',
    async () => {
      const third = (
        await sql<{ id: string }>(t, `INSERT INTO contacts (workspace_id, name) VALUES ($1, 'C') RETURNING id`, [ws])
      )[0]!.id;
      await conversation('S', q1, third, '2026-06-01T10:00:00Z');
      const ds = t.app.get(DataSource);
      const runners: QueryRunner[] = [ds.createQueryRunner(), ds.createQueryRunner()];
      const shardOf = async (r: QueryRunner): Promise<number> =>
        Number(((await r.query('SELECT analytics_slots_shard() AS s')) as { s: number }[])[0]!.s);
      try {
        const [a, b] = runners as [QueryRunner, QueryRunner];
        const shard = await shardOf(a);
        expect(await shardOf(a)).toBe(shard);
        expect(await shardOf(b)).not.toBe(shard);
        for (const r of runners) {
          await r.startTransaction();
          // Waiting for the other transaction's row would end in this error instead of a pass.
          await r.query(`SET LOCAL lock_timeout = '3s'`);
        }
        const store = (r: QueryRunner, at: string) =>
          r.query(
            `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status, created_at)
             VALUES ($1, $2, $3, 'INBOUND', 'CONTACT', 'TEXT', 'x', 'RECEIVED', $4)`,
            [ws, conv.S, ch, at],
          );
        await store(a, '2026-06-01T10:01:00Z');
        await store(b, '2026-06-01T10:02:00Z');
        await store(a, '2026-06-01T10:03:00Z');
        await b.commitTransaction();
        await a.commitTransaction();
      } finally {
        for (const r of runners) {
          if (r.isTransactionActive) await r.rollbackTransaction();
          await r.release();
        }
      }
      expect(await messages({ from: '2026-06-01T10:00:00Z', to: '2026-06-01T10:15:00Z' })).toEqual({
        inbound: 3,
        outbound: 0,
      });
    },
  );
});
