import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { CatalogueScheduler } from 'src/modules/catalogue/catalogue.scheduler';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { signupWorkspace } from '../../utils/sessions';
import { MockShop } from './mock-shop';
import type { Run } from './sync-helpers';

describe('catalogue sync timers survive a restart', () => {
  let shop: MockShop;
  beforeAll(async () => {
    shop = await MockShop.start();
    shop.route('/timer/products', () => ({ body: [{ id: 't1', name: 'Timer product', price: 10 }] }));
  });
  afterAll(async () => {
    await shop.close();
  });

  it('a sync that fell due while the service was down runs after it starts again', async () => {
    const first = await createTestApp();
    const admin = await signupWorkspace(first);
    const res = await first.http
      .post('/catalog/websites')
      .set(admin.headers)
      .send({ name: 'Timer', url: shop.url('/timer/products'), intervalMinutes: 15 })
      .expect(201);
    const id = res.body.id as string;
    await first.app
      .get(DataSource)
      .query(`UPDATE catalog_websites SET next_sync_at = now() + interval '1 second' WHERE id = $1`, [id]);
    const reuse = { dataDir: first.dataDir, databaseUrl: first.config.db.url ?? undefined };
    await first.close({ keepData: true });
    await new Promise((resolve) => setTimeout(resolve, 1_200));

    const second: TestApp = await createTestApp({ reuse });
    try {
      await second.app.get(CatalogueScheduler).startDueSyncs();
      const runs = await eventually(async () => {
        await second.drain();
        const list = await second.http.get(`/catalog/websites/${id}/runs`).set(admin.headers).expect(200);
        const data = list.body.data as Run[];
        if (data.length === 0 || data[0]!.status === 'RUNNING') throw new Error('not yet');
        return data;
      }, 30_000);
      expect(runs).toHaveLength(1);
      expect(runs[0]).toMatchObject({ trigger: 'SCHEDULE', status: 'SUCCESS', created: 1 });
      const items = await second.http.get(`/catalog?websiteId=${id}`).set(admin.headers).expect(200);
      expect(items.body.data).toHaveLength(1);
    } finally {
      await second.close();
    }
  });
});
