import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { type DomainEvent, EventBus } from 'src/core/events/event-bus';
import { CatalogueScheduler } from 'src/modules/catalogue/catalogue.scheduler';
import { WebsiteFetcher } from 'src/modules/catalogue/website/website-fetcher.service';
import { JobQueueService } from 'src/core/queue/job-queue.service';
import { type TestApp, createTestApp, eventually, usingRedis } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';
import { MockShop, pageOf, pageParam } from './mock-shop';
import { type Run, syncNow, websiteItems } from './sync-helpers';

interface FeedProduct {
  id: string;
  name: string;
  price?: number | string;
  currency?: string;
  stock?: number;
  images?: string[];
  sku?: string;
  category?: string;
  description?: string;
}

function products(n: number, from = 1): FeedProduct[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `p${from + i}`,
    name: `Product ${from + i}`,
    price: 100 * (from + i),
    currency: 'THB',
  }));
}

describe('catalogue website sync', () => {
  let t: TestApp;
  let shop: MockShop;
  const events: DomainEvent[] = [];
  beforeAll(async () => {
    t = await createTestApp();
    shop = await MockShop.start();
    t.app.get(EventBus).subscribe('catalog.sync.completed', (e) => void events.push(e));
    t.app.get(EventBus).subscribe('catalog.sync.stopped', (e) => void events.push(e));
  });
  afterAll(async () => {
    await shop.close();
    await t.close();
  });

  /** A generic paged shop at `path` that serves whatever `state.items` holds, 2 per page, key required. */
  function pagedShop(path: string, state: { items: FeedProduct[] }, key = 'secret-key'): void {
    shop.route(path, (req) => {
      if (req.headers['x-shop-key'] !== key) return { status: 401, body: { error: 'key required' } };
      return { body: { items: pageOf(state.items, pageParam(req), 2) } };
    });
  }

  async function connect(admin: Session, path: string, extra: Record<string, unknown> = {}): Promise<string> {
    const res = await t.http
      .post('/catalog/websites')
      .set(admin.headers)
      .send({
        name: 'Shop',
        url: shop.url(`${path}?page={page}`),
        keyHeaderName: 'X-Shop-Key',
        keyHeaderValue: 'secret-key',
        intervalMinutes: 60,
        ...extra,
      })
      .expect(201);
    return res.body.id as string;
  }

  it('connects with an encrypted key header, reads every page, and creates products the agent can quote', async () => {
    const admin = await signupWorkspace(t);
    const state = { items: products(5) };
    pagedShop('/a/products', state);
    const res = await t.http
      .post('/catalog/websites')
      .set(admin.headers)
      .send({
        name: 'Shop',
        url: shop.url('/a/products?page={page}'),
        keyHeaderName: 'X-Shop-Key',
        keyHeaderValue: 'secret-key',
        intervalMinutes: 15,
      })
      .expect(201);
    expect(res.body).toMatchObject({
      keyHeaderName: 'X-Shop-Key',
      keyHeaderConfigured: true,
      format: 'AUTO',
      status: 'ACTIVE',
      intervalMinutes: 15,
      lastSyncStatus: null,
    });
    expect(JSON.stringify(res.body)).not.toContain('secret-key');
    expect(new Date(res.body.nextSyncAt as string).getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
    const stored = await t.app
      .get(DataSource)
      .query('SELECT key_header_value FROM catalog_websites WHERE id = $1', [res.body.id]);
    expect(stored[0].key_header_value).not.toContain('secret-key');

    expect(t.app.get(JobQueueService).backend()).toBe(usingRedis() ? 'redis' : 'inline');
    const run = await syncNow(t, admin.headers, res.body.id as string);
    expect(run).toMatchObject({
      status: 'SUCCESS',
      trigger: 'MANUAL',
      pages: 3,
      fetched: 5,
      created: 5,
      updated: 0,
      offSale: 0,
      unchanged: 0,
    });
    expect(shop.requestsTo('/a/products').every((r) => r.method === 'GET')).toBe(true);
    expect(shop.requestsTo('/a/products').map((r) => r.query.get('page'))).toEqual(['1', '2', '3', '4']);
    const items = await websiteItems(t, admin.headers, res.body.id as string);
    expect(items.size).toBe(5);
    expect(items.get('p3')).toMatchObject({
      name: 'Product 3',
      price: 300,
      priceDisplay: '300',
      currency: 'THB',
      status: 'ON_SALE',
      source: 'WEBSITE',
    });
    const website = await t.http.get(`/catalog/websites/${res.body.id}`).set(admin.headers).expect(200);
    expect(website.body).toMatchObject({ lastSyncStatus: 'SUCCESS', detectedFormat: 'GENERIC' });
    expect(website.body.lastSyncMessage).toContain('5 created');
    expect(
      events.some(
        (e) => e.name === 'catalog.sync.completed' && e.data.run.id === run.id && e.workspaceId === admin.workspaceId,
      ),
    ).toBe(true);

    // A wrong key: the site answers 401, the run fails, nothing changes.
    await t.http
      .put(`/catalog/websites/${res.body.id}`)
      .set(admin.headers)
      .send({ keyHeaderValue: 'wrong' })
      .expect(200);
    const failed = await syncNow(t, admin.headers, res.body.id as string);
    expect(failed.status).toBe('FAILED');
    expect(failed.message).toContain('HTTP 401');
    expect((await websiteItems(t, admin.headers, res.body.id as string)).size).toBe(5);
  });

  it('applies website changes: new product, price change, new photo, out of stock, removed, reappearing; local price replaced with a notice, keywords kept', async () => {
    const admin = await signupWorkspace(t);
    const state = { items: products(6) };
    pagedShop('/b/products', state);
    const id = await connect(admin, '/b/products');
    await syncNow(t, admin.headers, id);
    let items = await websiteItems(t, admin.headers, id);
    await t.http
      .put(`/catalog/${items.get('p1')!.id}`)
      .set(admin.headers)
      .send({ price: 99, keywords: ['bestseller'] })
      .expect(200);
    await t.http
      .put(`/catalog/${items.get('p2')!.id}`)
      .set(admin.headers)
      .send({ keywords: ['gift'] })
      .expect(200);

    state.items = [
      { ...state.items[0]! },
      { ...state.items[1]!, price: 250, images: ['https://cdn.test/p2.jpg'] },
      { ...state.items[2]!, stock: 0 },
      { ...state.items[3]! },
      { ...state.items[4]! },
      { id: 'p7', name: 'Product 7', price: '฿1,999 (promo)' },
    ];
    const second = await syncNow(t, admin.headers, id);
    expect(second).toMatchObject({
      status: 'SUCCESS',
      created: 1,
      updated: 3,
      offSale: 1,
      restored: 0,
      unchanged: 2,
      fetched: 6,
    });
    items = await websiteItems(t, admin.headers, id);
    expect(items.get('p1')).toMatchObject({ price: 100, keywords: ['bestseller'] });
    expect(items.get('p1')!.notice).toMatch(/price set here \(99\) was replaced by the website's price \(100\)/);
    expect(items.get('p2')).toMatchObject({
      price: 250,
      images: ['https://cdn.test/p2.jpg'],
      keywords: ['gift'],
      notice: null,
    });
    expect(items.get('p3')).toMatchObject({ stock: 0 });
    expect(items.get('p6')).toMatchObject({ status: 'OFF_SALE' });
    expect(items.get('p7')).toMatchObject({
      status: 'ON_SALE',
      price: '฿1,999 (promo)',
      priceDisplay: '฿1,999 (promo)',
    });
    const onSale = await t.http.get(`/catalog?websiteId=${id}&limit=100`).set(admin.headers).expect(200);
    expect(onSale.body.data.map((i: { websiteProductId: string }) => i.websiteProductId).sort()).toEqual([
      'p1',
      'p2',
      'p3',
      'p4',
      'p5',
      'p7',
    ]);

    // p6 comes back; p4 was taken off sale by hand and stays off sale although the site lists it.
    await t.http
      .delete(`/catalog/${items.get('p4')!.id}`)
      .set(admin.headers)
      .expect(200);
    state.items = [...state.items, { id: 'p6', name: 'Product 6 v2', price: 600 }];
    const third = await syncNow(t, admin.headers, id);
    expect(third).toMatchObject({ status: 'SUCCESS', created: 0, restored: 1, offSale: 0 });
    items = await websiteItems(t, admin.headers, id);
    expect(items.get('p6')).toMatchObject({ status: 'ON_SALE', name: 'Product 6 v2' });
    expect(items.get('p4')).toMatchObject({ status: 'OFF_SALE' });
    expect(items.get('p1')).toMatchObject({ price: 100 });
  });

  it('off-sale guard: exactly half goes through; more than half changes nothing, tells the user, publishes the event; confirmOffSale lets one run through', async () => {
    const admin = await signupWorkspace(t);
    const state = { items: products(10) };
    pagedShop('/c/products', state);
    const id = await connect(admin, '/c/products');
    expect((await syncNow(t, admin.headers, id)).created).toBe(10);

    state.items = products(5);
    const half = await syncNow(t, admin.headers, id);
    expect(half).toMatchObject({ status: 'SUCCESS', offSale: 5 });

    // Now 5 on sale; the site shows 2 of them (3 would go: more than half), and changes a price.
    state.items = [{ ...products(1)[0]!, price: 12345 }, ...products(1, 2)];
    const before = await websiteItems(t, admin.headers, id);
    const stopped = await syncNow(t, admin.headers, id);
    expect(stopped.status).toBe('GUARD_STOPPED');
    expect(stopped.message).toContain("3 of the website's 5 products on sale");
    expect(stopped.message).toContain('more than half');
    expect(stopped).toMatchObject({ created: 0, updated: 0, offSale: 0 });
    const after = await websiteItems(t, admin.headers, id);
    expect([...after.values()].map((i) => [i.websiteProductId, i.status, i.price])).toEqual(
      [...before.values()].map((i) => [i.websiteProductId, i.status, i.price]),
    );
    const website = await t.http.get(`/catalog/websites/${id}`).set(admin.headers).expect(200);
    expect(website.body.lastSyncStatus).toBe('GUARD_STOPPED');
    expect(website.body.lastSyncMessage).toContain('3 of the website');
    const event = events.find((e) => e.name === 'catalog.sync.stopped' && e.data.run.id === stopped.id);
    expect(event?.data).toMatchObject({ websiteId: id, wouldTakeOffSale: 3, onSale: 5 });

    const confirmed = await syncNow(t, admin.headers, id, true);
    expect(confirmed).toMatchObject({ status: 'SUCCESS', offSale: 3, updated: 1 });
    expect((await websiteItems(t, admin.headers, id)).get('p1')).toMatchObject({ price: 12345, status: 'ON_SALE' });
    // The confirmation was for that run only.
    state.items = [];
    expect((await syncNow(t, admin.headers, id)).status).toBe('GUARD_STOPPED');
  });

  it('a failed fetch (500, bad JSON, timeout) changes nothing', async () => {
    const admin = await signupWorkspace(t);
    const state = { items: products(4) };
    let mode: 'ok' | '500' | 'json' | 'slow' = 'ok';
    shop.route('/d/products', (req) => {
      const page = pageParam(req);
      if (mode === '500' && page === 2) return { status: 500, body: { error: 'boom' } };
      if (mode === 'json' && page === 2) return { body: '{"items": [ {"id": "p1", ' };
      if (mode === 'slow' && page === 2) return { body: { items: [] }, delayMs: 3_000 };
      return { body: pageOf(state.items, page, 2) };
    });
    const res = await t.http
      .post('/catalog/websites')
      .set(admin.headers)
      .send({ name: 'D', url: shop.url('/d/products?page={page}'), intervalMinutes: 1440 })
      .expect(201);
    const id = res.body.id as string;
    expect((await syncNow(t, admin.headers, id)).created).toBe(4);
    state.items = [{ id: 'p1', name: 'Changed', price: 1 }];
    const before = await websiteItems(t, admin.headers, id);

    mode = '500';
    const failed500 = await syncNow(t, admin.headers, id);
    expect(failed500).toMatchObject({ status: 'FAILED', created: 0, offSale: 0 });
    expect(failed500.message).toContain('page 2: the website answered HTTP 500');
    mode = 'json';
    expect((await syncNow(t, admin.headers, id)).message).toContain('page 2 is not valid JSON');
    mode = 'slow';
    const fetcher = t.app.get(WebsiteFetcher);
    const timeout = fetcher.options.timeoutMs;
    fetcher.options.timeoutMs = 300;
    try {
      expect((await syncNow(t, admin.headers, id)).message).toContain('timeout');
    } finally {
      fetcher.options.timeoutMs = timeout;
    }
    const after = await websiteItems(t, admin.headers, id);
    expect([...after.values()]).toEqual([...before.values()]);
    expect((await t.http.get(`/catalog/websites/${id}`).set(admin.headers).expect(200)).body.lastSyncStatus).toBe(
      'FAILED',
    );
  });

  it('disconnecting keeps the products, which stop updating; reconnecting the same link picks them up again', async () => {
    const admin = await signupWorkspace(t);
    const state = { items: products(3) };
    pagedShop('/e/products', state);
    const id = await connect(admin, '/e/products');
    await syncNow(t, admin.headers, id);
    await t.http.delete(`/catalog/websites/${id}`).set(admin.headers).expect(204);
    await t.http.delete(`/catalog/websites/${id}`).set(admin.headers).expect(204);
    const gone = await t.http.get(`/catalog/websites/${id}`).set(admin.headers).expect(200);
    expect(gone.body).toMatchObject({
      status: 'DISCONNECTED',
      keyHeaderConfigured: false,
      keyHeaderName: null,
      nextSyncAt: null,
    });
    expect((await t.http.post(`/catalog/websites/${id}/sync`).set(admin.headers).send({}).expect(409)).body.code).toBe(
      'invalid_transition',
    );
    await t.http.put(`/catalog/websites/${id}`).set(admin.headers).send({ name: 'x' }).expect(409);
    const kept = await websiteItems(t, admin.headers, id);
    expect([...kept.values()].map((i) => i.status)).toEqual(['ON_SALE', 'ON_SALE', 'ON_SALE']);
    expect((await t.app.get(CatalogueScheduler).startDueSyncs()).length).toBe(0);

    const again = await connect(admin, '/e/products');
    expect(again).toBe(id);
    state.items = products(4);
    expect(await syncNow(t, admin.headers, id)).toMatchObject({ created: 1, unchanged: 3 });
  });

  it('the timer claims due connections once (FOR UPDATE SKIP LOCKED) and moves nextSyncAt on', async () => {
    const admin = await signupWorkspace(t);
    const state = { items: products(2) };
    pagedShop('/f/products', state);
    const id = await connect(admin, '/f/products', { intervalMinutes: 30 });
    await t.app
      .get(DataSource)
      .query(`UPDATE catalog_websites SET next_sync_at = now() - interval '1 minute' WHERE id = $1`, [id]);
    const scheduler = t.app.get(CatalogueScheduler);
    // Three ticks at once (as three workers would); the app's own 30 s tick may join in.
    const claimed = (
      await Promise.all([scheduler.startDueSyncs(), scheduler.startDueSyncs(), scheduler.startDueSyncs()])
    ).flat();
    expect(claimed.length).toBeLessThanOrEqual(1);
    const runs = await eventually(async () => {
      await t.drain();
      const res = await t.http.get(`/catalog/websites/${id}/runs`).set(admin.headers).expect(200);
      const data = res.body.data as Run[];
      if (data.length === 0 || data.some((r) => r.status === 'RUNNING')) throw new Error('no finished run yet');
      return data;
    }, 30_000);
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ trigger: 'SCHEDULE', status: 'SUCCESS', created: 2 });
    const website = await t.http.get(`/catalog/websites/${id}`).set(admin.headers).expect(200);
    const next = new Date(website.body.nextSyncAt as string).getTime();
    expect(next).toBeGreaterThan(Date.now() + 29 * 60_000);
    expect(next).toBeLessThan(Date.now() + 31 * 60_000);
    expect(await scheduler.startDueSyncs()).toEqual([]);
  });

  it('validates connections and keeps workspaces apart: websites, runs and synced items', async () => {
    const a = await signupWorkspace(t, 'A');
    const b = await signupWorkspace(t, 'B');
    const base = { name: 'S', url: shop.url('/g/products'), intervalMinutes: 60 };
    await t.http
      .post('/catalog/websites')
      .set(a.headers)
      .send({ ...base, intervalMinutes: 14 })
      .expect(400);
    await t.http
      .post('/catalog/websites')
      .set(a.headers)
      .send({ ...base, intervalMinutes: 1441 })
      .expect(400);
    await t.http
      .post('/catalog/websites')
      .set(a.headers)
      .send({ ...base, url: 'ftp://x.test/list' })
      .expect(400);
    await t.http
      .post('/catalog/websites')
      .set(a.headers)
      .send({ ...base, keyHeaderName: 'X-Key' })
      .expect(400);
    await t.http
      .post('/catalog/websites')
      .set(a.headers)
      .send({ ...base, keyHeaderValue: 'v' })
      .expect(400);
    await t.http
      .post('/catalog/websites')
      .set(a.headers)
      .send({ ...base, keyHeaderName: 'Bad Header', keyHeaderValue: 'v' })
      .expect(400);
    await t.http
      .post('/catalog/websites')
      .set(a.headers)
      .send({ ...base, format: 'MAGENTO' })
      .expect(400);

    shop.route('/g/products', () => ({ body: [{ id: 1, name: 'G1', price: 10 }] }));
    const created = await t.http
      .post('/catalog/websites')
      .set(a.headers)
      .send({ ...base, format: 'generic' })
      .expect(201);
    const id = created.body.id as string;
    const run = await syncNow(t, a.headers, id);
    expect(run.created).toBe(1);

    expect((await t.http.get('/catalog/websites').set(b.headers).expect(200)).body.data).toHaveLength(0);
    expect((await t.http.get('/catalog/websites').set(a.headers).expect(200)).body.data).toHaveLength(1);
    await t.http.get(`/catalog/websites/${id}`).set(b.headers).expect(404);
    await t.http.put(`/catalog/websites/${id}`).set(b.headers).send({ name: 'x' }).expect(404);
    await t.http.post(`/catalog/websites/${id}/sync`).set(b.headers).send({}).expect(404);
    await t.http.get(`/catalog/websites/${id}/runs`).set(b.headers).expect(404);
    await t.http.delete(`/catalog/websites/${id}`).set(b.headers).expect(404);
    expect((await t.http.get(`/catalog?websiteId=${id}`).set(b.headers).expect(200)).body.data).toHaveLength(0);
    expect((await t.http.get(`/catalog?websiteId=${id}`).set(a.headers).expect(200)).body.data).toHaveLength(1);
    expect((await t.http.get(`/catalog/websites/${id}`).set(a.headers).expect(200)).body.status).toBe('ACTIVE');
  });
});
