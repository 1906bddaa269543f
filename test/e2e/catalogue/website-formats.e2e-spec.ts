import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';
import { MockShop, pageParam } from './mock-shop';
import { syncNow, websiteItems } from './sync-helpers';

describe('catalogue website formats and paging', () => {
  let t: TestApp;
  let shop: MockShop;
  beforeAll(async () => {
    t = await createTestApp();
    shop = await MockShop.start();
  });
  afterAll(async () => {
    await shop.close();
    await t.close();
  });

  async function connect(admin: Session, url: string, format?: string): Promise<string> {
    const res = await t.http
      .post('/catalog/websites')
      .set(admin.headers)
      .send({ name: 'Shop', url, intervalMinutes: 120, ...(format ? { format } : {}) })
      .expect(201);
    return res.body.id as string;
  }

  it('understands Shopify products.json (AUTO): lowest variant price, images, type, availability, HTML descriptions', async () => {
    const admin = await signupWorkspace(t);
    shop.route('/shopify/products.json', (req) =>
      pageParam(req) === 1
        ? {
            body: {
              products: [
                {
                  id: 7001,
                  title: 'Espresso Machine',
                  body_html: '<p>Twin <strong>boiler</strong> &amp; PID</p>',
                  product_type: 'Coffee',
                  variants: [{ id: 1, price: '1299.00', sku: 'EM-1', available: true }],
                  images: [{ src: 'https://cdn.shopify.test/em.jpg' }, { src: 'https://cdn.shopify.test/em2.jpg' }],
                },
                {
                  id: 7002,
                  title: 'Beans',
                  body_html: '',
                  product_type: '',
                  variants: [
                    { id: 2, price: '24.50', sku: '', available: false },
                    { id: 3, price: '19.90', sku: 'BEANS-S', available: false },
                  ],
                  images: [],
                },
              ],
            },
          }
        : { body: { products: [] } },
    );
    const id = await connect(admin, shop.url('/shopify/products.json?limit=250&page={page}'));
    const run = await syncNow(t, admin.headers, id);
    expect(run).toMatchObject({ status: 'SUCCESS', pages: 1, fetched: 2, created: 2 });
    expect((await t.http.get(`/catalog/websites/${id}`).set(admin.headers).expect(200)).body.detectedFormat).toBe(
      'SHOPIFY',
    );
    const items = await websiteItems(t, admin.headers, id);
    expect(items.get('7001')).toMatchObject({
      name: 'Espresso Machine',
      price: 1299,
      priceDisplay: '1,299',
      description: 'Twin boiler & PID',
      category: 'Coffee',
      sku: 'EM-1',
      stock: null,
      images: ['https://cdn.shopify.test/em.jpg', 'https://cdn.shopify.test/em2.jpg'],
    });
    expect(items.get('7002')).toMatchObject({
      price: 19.9,
      priceDisplay: '19.90',
      stock: 0,
      sku: 'BEANS-S',
      category: null,
      images: [],
    });
  });

  it('understands the WooCommerce Store API: minor units, currency, stock, and stops at X-WP-TotalPages', async () => {
    const admin = await signupWorkspace(t);
    const product = (id: number, price: string, inStock: boolean) => ({
      id,
      name: `Woo &amp; ${id}`,
      sku: `W-${id}`,
      short_description: '<p>Short</p>',
      description: '<p>Long</p>',
      prices: { price, regular_price: price, currency_code: 'THB', currency_minor_unit: 2 },
      categories: [{ id: 1, name: 'Lamps' }],
      images: [{ id: 1, src: `https://woo.test/${id}.jpg` }],
      is_in_stock: inStock,
      low_stock_remaining: null,
    });
    shop.route('/wp-json/wc/store/v1/products', (req) => ({
      headers: { 'X-WP-Total': '4', 'X-WP-TotalPages': '2' },
      body:
        pageParam(req) === 1
          ? [product(1, '129950', true), product(2, '5', false)]
          : [product(3, '100000', true), product(4, '0', true)],
    }));
    const id = await connect(admin, shop.url('/wp-json/wc/store/v1/products?per_page=2&page={page}'));
    const run = await syncNow(t, admin.headers, id);
    expect(run).toMatchObject({ status: 'SUCCESS', pages: 2, fetched: 4, created: 4 });
    expect(shop.requestsTo('/wp-json/wc/store/v1/products').map((r) => r.query.get('page'))).toEqual(['1', '2']);
    const items = await websiteItems(t, admin.headers, id);
    expect(items.get('1')).toMatchObject({
      name: 'Woo & 1',
      price: 1299.5,
      priceDisplay: '1,299.50',
      currency: 'THB',
      description: 'Short',
      category: 'Lamps',
      sku: 'W-1',
      stock: null,
      images: ['https://woo.test/1.jpg'],
    });
    expect(items.get('2')).toMatchObject({ price: 0.05, priceDisplay: '0.05', stock: 0 });
    expect(items.get('3')).toMatchObject({ price: 1000, priceDisplay: '1,000' });
    expect((await t.http.get(`/catalog/websites/${id}`).set(admin.headers).expect(200)).body.detectedFormat).toBe(
      'WOOCOMMERCE',
    );

    // Without {page} one request is made, and the run says the site has more pages.
    const single = await connect(admin, shop.url('/wp-json/wc/store/v1/products?per_page=2'), 'WOOCOMMERCE');
    const before = shop.requestsTo('/wp-json/wc/store/v1/products').length;
    const one = await syncNow(t, admin.headers, single);
    expect(one).toMatchObject({ status: 'SUCCESS', pages: 1, fetched: 2 });
    expect(one.message).toContain('reports 2 pages');
    expect(shop.requestsTo('/wp-json/wc/store/v1/products').length).toBe(before + 1);
  });

  it('reads feed-shaped lists under data, skips entries without an id, and stops at a page equal to the previous one', async () => {
    const admin = await signupWorkspace(t);
    shop.route('/repeat', () => ({
      body: {
        data: [
          { id: 'r1', title: 'Titled', price: 5, stock: '7' },
          { name: 'no id' },
          { id: 2, name: 'Two', price: '2 for 1' },
        ],
      },
    }));
    const id = await connect(admin, shop.url('/repeat?p={page}'), 'generic');
    const run = await syncNow(t, admin.headers, id);
    expect(run).toMatchObject({ status: 'SUCCESS', pages: 1, fetched: 2, created: 2 });
    expect(run.message).toContain('page 2 repeated page 1');
    expect(run.message).toContain('1 entry without an id skipped');
    expect(shop.requestsTo('/repeat')).toHaveLength(2);
    const items = await websiteItems(t, admin.headers, id);
    expect(items.get('r1')).toMatchObject({ name: 'Titled', price: 5, stock: 7 });
    expect(items.get('2')).toMatchObject({ name: 'Two', price: '2 for 1' });
  });

  it('fails a list that never ends at 1,000 pages, changing nothing; a page that is not a product list fails too', async () => {
    const admin = await signupWorkspace(t);
    shop.route('/endless', (req) => ({
      body: [{ id: `e${pageParam(req)}`, name: `Endless ${pageParam(req)}`, price: 1 }],
    }));
    const id = await connect(admin, shop.url('/endless?page={page}'));
    const run = await syncNow(t, admin.headers, id);
    expect(run.status).toBe('FAILED');
    expect(run.message).toContain('did not end after 1,000 pages');
    expect(shop.requestsTo('/endless')).toHaveLength(1000);
    expect((await websiteItems(t, admin.headers, id)).size).toBe(0);

    shop.route('/weird', () => ({ body: { error: 'maintenance' } }));
    const weird = await connect(admin, shop.url('/weird'));
    const failed = await syncNow(t, admin.headers, weird);
    expect(failed.status).toBe('FAILED');
    expect(failed.message).toContain('no product list found');
  }, 120_000);
});
