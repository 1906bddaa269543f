import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';
import { sql } from '../inbox/inbox-helpers';

const TICK_MS = 200;

/**
 * Issue 9 item 9: the website-sync timer fires on its own (CATALOGUE_SYNC_TICK_MS, nothing calls the
 * scheduler), and APP_ROLE=api runs no timer at all.
 */
describe('Timers fire for real, and not in the api role', () => {
  let shop: Server;
  let shopUrl = '';
  let worker: TestApp;
  let api: TestApp;
  const env = {
    CATALOGUE_SYNC_TICK_MS: String(TICK_MS),
    SLA_CHECK_TICK_MS: String(TICK_MS),
    INBOUND_SWEEP_TICK_MS: String(TICK_MS),
    OUTBOUND_SWEEP_TICK_MS: String(TICK_MS),
  };
  beforeAll(async () => {
    shop = createServer((_req, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify([{ id: 'p1', name: 'Tea', price: 3 }]));
    });
    await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
    shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/products`;
    worker = await createTestApp({ env: { ...env, APP_ROLE: 'all' } });
    api = await createTestApp({ env: { ...env, APP_ROLE: 'api' } });
  });
  afterAll(async () => {
    await worker.close();
    await api.close();
    await new Promise<void>((r) => shop.close(() => r()));
  });

  async function dueWebsite(t: TestApp, admin: Session): Promise<string> {
    const res = await t.http
      .post('/catalog/websites')
      .set(admin.headers)
      .send({ name: 'Shop', url: shopUrl, intervalMinutes: 60 })
      .expect(201);
    await sql(t, `UPDATE catalog_websites SET next_sync_at = now() - interval '1 second' WHERE id = $1`, [res.body.id]);
    return res.body.id as string;
  }

  const scheduledRuns = async (t: TestApp, websiteId: string) =>
    sql<{ status: string }>(
      t,
      `SELECT status FROM catalog_website_runs WHERE website_id = $1 AND trigger = 'SCHEDULE'`,
      [websiteId],
    );

  it('APP_ROLE=all: the sync timer starts a SCHEDULE run by itself within a few ticks', async () => {
    const admin = await signupWorkspace(worker, 'Timer');
    const id = await dueWebsite(worker, admin);
    const deadline = Date.now() + 15_000;
    let runs: { status: string }[] = [];
    while (Date.now() < deadline) {
      await worker.drain();
      runs = await scheduledRuns(worker, id);
      if (runs.some((r) => r.status !== 'RUNNING')) break;
      await new Promise((r) => setTimeout(r, TICK_MS));
    }
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe('SUCCESS');
  });

  it('APP_ROLE=api: no timer runs (the due website stays due)', async () => {
    const admin = await signupWorkspace(api, 'Api');
    const id = await dueWebsite(api, admin);
    await new Promise((r) => setTimeout(r, TICK_MS * 10));
    expect(await scheduledRuns(api, id)).toEqual([]);
  });
});
