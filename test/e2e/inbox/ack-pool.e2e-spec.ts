import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource, type QueryRunner } from 'typeorm';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { setPlan, signupWorkspace } from '../../utils/sessions';
import { type CustomChannel, connectCustom, inboxEnv, postCustom } from './inbox-helpers';
import { MockPlatform } from './mock-platform';

/**
 * Issue 16 (DESIGN §4.3, §13): on PostgreSQL a webhook acknowledgement stores its event on a pool of
 * its own (ACK_POOL_SIZE), so it is answered even while every connection of the main pool is held by
 * other work — long requests, exports, or the pipeline in the `all` role. The embedded engine has
 * one session and no second pool.
 */
const postgres = Boolean(process.env.DATABASE_URL);

(postgres ? describe : describe.skip)('webhook acks on their own pool (PostgreSQL)', () => {
  let t: TestApp;
  let mock: MockPlatform;
  let channel: CustomChannel;
  beforeAll(async () => {
    mock = await MockPlatform.start();
    // A main pool of two connections, so the test can hold all of it.
    t = await createTestApp({ env: inboxEnv(mock, { DATABASE_POOL_SIZE: '2', ACK_POOL_SIZE: '2' }) });
    const admin = await signupWorkspace(t, 'Acks');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
    channel = await connectCustom(t, admin, mock);
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  it('answers and stores a signed message while the main pool is saturated', async () => {
    // First message: the connection is looked up (main pool) and cached, as on a running service.
    await postCustom(t, channel, { senderId: 'c-1', text: 'warm', messageId: 'm-warm' }).expect(200);

    const dataSource = t.app.get(DataSource);
    const held: QueryRunner[] = [];
    for (let i = 0; i < t.config.db.poolSize; i++) {
      const runner = dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      await runner.query('SELECT 1');
      held.push(runner);
    }
    try {
      // The main pool is really saturated: a statement on it waits.
      let mainPoolAnswered = false;
      const waiting = dataSource.query('SELECT 1').then(() => (mainPoolAnswered = true));

      const started = Date.now();
      const res = await postCustom(t, channel, { senderId: 'c-1', text: 'while busy', messageId: 'm-busy' }).expect(
        200,
      );
      // Far below the main pool's 15 s connection timeout the request would otherwise wait for.
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(res.body).toEqual({ received: true, eventId: expect.any(String), eventIds: [res.body.eventId] });
      expect(mainPoolAnswered).toBe(false);

      // Stored (committed: another session sees it) before the answer.
      const [row] = await held[0]!.query(`SELECT payload->>'text' AS text FROM inbound_events WHERE id = $1`, [
        res.body.eventId,
      ]);
      expect(row).toEqual({ text: 'while busy' });

      for (const runner of held.splice(0)) {
        await runner.rollbackTransaction();
        await runner.release();
      }
      await waiting;
      expect(mainPoolAnswered).toBe(true);
    } finally {
      for (const runner of held) {
        await runner.rollbackTransaction();
        await runner.release();
      }
    }
  });

  it('uses the main pool when ACK_POOL_SIZE=0 (the ack then waits for it like any request)', async () => {
    const shared = await createTestApp({ env: inboxEnv(mock, { DATABASE_POOL_SIZE: '2', ACK_POOL_SIZE: '0' }) });
    try {
      const admin = await signupWorkspace(shared, 'Shared');
      await setPlan(shared, admin.workspaceId, 'ENTERPRISE');
      const own = await connectCustom(shared, admin, mock);
      await postCustom(shared, own, { senderId: 'c-2', text: 'warm', messageId: 'w' }).expect(200);
      const dataSource = shared.app.get(DataSource);
      const held: QueryRunner[] = [];
      for (let i = 0; i < 2; i++) {
        const runner = dataSource.createQueryRunner();
        await runner.connect();
        await runner.startTransaction();
        held.push(runner);
      }
      let answered = false;
      const pending = postCustom(shared, own, { senderId: 'c-2', text: 'queued', messageId: 'q' }).then((r) => {
        answered = true;
        return r;
      });
      await new Promise((r) => setTimeout(r, 1_000));
      expect(answered).toBe(false); // waiting for a main-pool connection
      for (const runner of held) {
        await runner.rollbackTransaction();
        await runner.release();
      }
      expect((await pending).status).toBe(200);
    } finally {
      await shared.close();
    }
  });
});
