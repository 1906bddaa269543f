import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, addMember, apiToken, signupWorkspace } from '../../utils/sessions';

type Headers = Record<string, string>;

interface Item {
  id: string;
  externalId: string | null;
  name: string | null;
  price: number | string | null;
  priceDisplay: string | null;
  currency: string | null;
  stock: number | null;
  images: string[];
  keywords: string[];
  status: string;
  source: string;
  description: string | null;
  sku: string | null;
  category: string | null;
}

describe('catalogue items and feed', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function feedHeaders(admin: Session): Promise<Headers> {
    return (await apiToken(t, admin, ['catalog:write'])).headers;
  }

  async function listAll(headers: Headers, query = ''): Promise<Item[]> {
    const res = await t.http.get(`/catalog?limit=100${query}`).set(headers).expect(200);
    return res.body.data as Item[];
  }

  async function byExternalId(headers: Headers, externalId: string): Promise<Item[]> {
    return (await listAll(headers, '&status=ALL')).filter((i) => i.externalId === externalId);
  }

  it('creates, reads, edits and takes items off sale by hand; price kept as sent, shown per SPEC', async () => {
    const admin = await signupWorkspace(t);
    const created = await t.http
      .post('/catalog')
      .set(admin.headers)
      .send({
        name: 'Espresso Machine',
        price: 1299.5,
        currency: 'USD',
        stock: 3,
        images: ['https://img.example.com/a.jpg'],
        keywords: ['coffee'],
      })
      .expect(201);
    const item = created.body as Item;
    expect(item).toMatchObject({
      name: 'Espresso Machine',
      price: 1299.5,
      priceDisplay: '1,299.50',
      status: 'ON_SALE',
      source: 'MANUAL',
      stock: 3,
    });

    const textPrice = await t.http
      .post('/catalog')
      .set(admin.headers)
      .send({ name: 'Tea', price: 'from 12,50 €' })
      .expect(201);
    expect(textPrice.body).toMatchObject({ price: 'from 12,50 €', priceDisplay: 'from 12,50 €' });
    const whole = await t.http.post('/catalog').set(admin.headers).send({ name: 'Grinder', price: 1299 }).expect(201);
    expect(whole.body.priceDisplay).toBe('1,299');

    const edited = await t.http
      .put(`/catalog/${item.id}`)
      .set(admin.headers)
      .send({ stock: null, description: 'Twin boiler' })
      .expect(200);
    expect(edited.body).toMatchObject({
      name: 'Espresso Machine',
      price: 1299.5,
      stock: null,
      description: 'Twin boiler',
      keywords: ['coffee'],
    });
    await t.http.put(`/catalog/${item.id}`).set(admin.headers).send({ name: '' }).expect(400);
    await t.http.put(`/catalog/${item.id}`).set(admin.headers).send({ price: -1 }).expect(400);
    await t.http
      .put(`/catalog/${item.id}`)
      .set(admin.headers)
      .send({ images: ['not a url'] })
      .expect(400);

    const off = await t.http.delete(`/catalog/${item.id}`).set(admin.headers).expect(200);
    expect(off.body).toMatchObject({ id: item.id, status: 'OFF_SALE' });
    expect((await t.http.get(`/catalog/${item.id}`).set(admin.headers).expect(200)).body.status).toBe('OFF_SALE');
    expect((await listAll(admin.headers)).map((i) => i.id)).not.toContain(item.id);
    expect((await listAll(admin.headers, '&status=off_sale')).map((i) => i.id)).toEqual([item.id]);
    const back = await t.http.put(`/catalog/${item.id}`).set(admin.headers).send({ status: 'ON_SALE' }).expect(200);
    expect(back.body.status).toBe('ON_SALE');

    await t.http.get('/catalog/not-a-uuid').set(admin.headers).expect(404);
    await t.http.post('/catalog').set(admin.headers).send({ name: 'X', externalId: 'dup' }).expect(201);
    const dup = await t.http.post('/catalog').set(admin.headers).send({ name: 'Y', externalId: 'dup' }).expect(409);
    expect(dup.body.code).toBe('conflict');
  });

  it('filters the list by search, category, status, source and stock, with keyset paging', async () => {
    const admin = await signupWorkspace(t);
    const feed = await feedHeaders(admin);
    await t.http
      .put('/catalog/feed/items')
      .set(feed)
      .send({
        items: [
          { id: 'a', name: 'Red Mug', category: 'Kitchen', stock: 0, sku: 'MUG-RED' },
          { id: 'b', name: 'Blue Mug', category: 'kitchen', stock: 5, description: 'A 100% ceramic mug' },
          { id: 'c', name: 'Lamp', category: 'Living' },
        ],
      })
      .expect(200);
    const manual = await t.http
      .post('/catalog')
      .set(admin.headers)
      .send({ name: 'Sofa', keywords: ['couch'] })
      .expect(201);
    expect((await listAll(admin.headers, '&search=mug')).map((i) => i.externalId).sort()).toEqual(['a', 'b']);
    expect((await listAll(admin.headers, '&search=mug-red')).map((i) => i.externalId)).toEqual(['a']);
    expect((await listAll(admin.headers, '&search=100%25')).map((i) => i.externalId)).toEqual(['b']);
    expect((await listAll(admin.headers, '&search=COUCH')).map((i) => i.id)).toEqual([manual.body.id]);
    expect((await listAll(admin.headers, '&category=KITCHEN')).length).toBe(2);
    expect((await listAll(admin.headers, '&inStock=false')).map((i) => i.externalId)).toEqual(['a']);
    expect((await listAll(admin.headers, '&inStock=true')).length).toBe(3);
    expect((await listAll(admin.headers, '&source=feed')).length).toBe(3);
    expect((await listAll(admin.headers, '&source=MANUAL')).length).toBe(1);
    await t.http.get('/catalog?status=SOLD').set(admin.headers).expect(400);

    const first = await t.http.get('/catalog?limit=3').set(admin.headers).expect(200);
    expect(first.body.data).toHaveLength(3);
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const second = await t.http.get(`/catalog?limit=3&cursor=${first.body.nextCursor}`).set(admin.headers).expect(200);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.nextCursor).toBeNull();
  });

  it('feed scope matrix: no credentials 401, user JWT 403, token without scope 403, token with scope 200', async () => {
    const admin = await signupWorkspace(t);
    const body = { items: [{ id: 'p1', name: 'P1' }] };
    const none = await t.http.put('/catalog/feed/items').send(body).expect(401);
    expect(none.body.code).toBe('unauthenticated');
    const jwt = await t.http.put('/catalog/feed/items').set(admin.headers).send(body).expect(403);
    expect(jwt.body.code).toBe('insufficient_scope');
    const scopeless = await apiToken(t, admin, []);
    expect((await t.http.put('/catalog/feed/items').set(scopeless.headers).send(body).expect(403)).body.code).toBe(
      'insufficient_scope',
    );
    expect((await t.http.delete('/catalog/feed/items/p1').set(scopeless.headers).expect(403)).body.code).toBe(
      'insufficient_scope',
    );
    expect((await t.http.delete('/catalog/feed/items/p1').set(admin.headers).expect(403)).body.code).toBe(
      'insufficient_scope',
    );
    await t.http.delete('/catalog/feed/items/p1').expect(401);
    const feed = await feedHeaders(admin);
    await t.http.put('/catalog/feed/items').set(feed).send(body).expect(200);
    // An API token acts as ADMIN on the other catalogue endpoints; an AGENT may read but not write.
    expect((await t.http.get('/catalog').set(scopeless.headers).expect(200)).body.data).toHaveLength(1);
    const agent = await addMember(t, admin, 'AGENT');
    await t.http.get('/catalog').set(agent.headers).expect(200);
    expect((await t.http.post('/catalog').set(agent.headers).send({ name: 'No' }).expect(403)).body.code).toBe(
      'forbidden',
    );
  });

  it('feed upsert: creates new ids, updates only the fields sent, null clears, answers per DESIGN §12', async () => {
    const admin = await signupWorkspace(t);
    const feed = await feedHeaders(admin);
    const first = await t.http
      .put('/catalog/feed/items')
      .set(feed)
      .send({
        items: [
          {
            id: 'sku-1',
            name: 'Kettle',
            price: 49.9,
            currency: 'EUR',
            stock: 10,
            description: 'Steel',
            images: ['https://x.test/k.png'],
          },
          { id: 'sku-2', name: 'Toaster', price: '39,00 €' },
        ],
      })
      .expect(200);
    expect(first.body).toEqual({
      created: 2,
      updated: 0,
      items: [
        { id: 'sku-1', status: 'created' },
        { id: 'sku-2', status: 'created' },
      ],
    });

    const [kettle] = await byExternalId(admin.headers, 'sku-1');
    await t.http
      .put(`/catalog/${kettle!.id}`)
      .set(admin.headers)
      .send({ keywords: ['boil', 'water'] })
      .expect(200);

    const second = await t.http
      .put('/catalog/feed/items')
      .set(feed)
      .send({
        items: [
          { id: 'sku-3', name: 'Blender' },
          { id: 'sku-1', price: 59, stock: null },
        ],
      })
      .expect(200);
    expect(second.body).toEqual({
      created: 1,
      updated: 1,
      items: [
        { id: 'sku-3', status: 'created' },
        { id: 'sku-1', status: 'updated' },
      ],
    });
    const [after] = await byExternalId(admin.headers, 'sku-1');
    expect(after).toMatchObject({
      name: 'Kettle',
      price: 59,
      priceDisplay: '59',
      currency: 'EUR',
      stock: null,
      description: 'Steel',
      images: ['https://x.test/k.png'],
      keywords: ['boil', 'water'],
      source: 'FEED',
      status: 'ON_SALE',
    });
    expect((await byExternalId(admin.headers, 'sku-2'))[0]).toMatchObject({
      price: '39,00 €',
      priceDisplay: '39,00 €',
    });
  });

  it('feed validation: an invalid item is named and nothing is saved; ids are required and unique; 500 ok, 501 → 413', async () => {
    const admin = await signupWorkspace(t);
    const feed = await feedHeaders(admin);
    const items = [0, 1, 2, 3].map((n) => ({ id: `v-${n}`, name: `V${n}`, price: n }));
    const bad = await t.http
      .put('/catalog/feed/items')
      .set(feed)
      .send({ items: items.map((item, n) => (n === 3 ? { ...item, price: { amount: 3 } } : item)) })
      .expect(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.message).toMatch(/^items\.3\.price /);
    expect(bad.body.details[0].field).toBe('items.3.price');
    expect(await listAll(admin.headers, '&status=ALL')).toHaveLength(0);

    const noId = await t.http
      .put('/catalog/feed/items')
      .set(feed)
      .send({ items: [{ id: 'ok' }, { name: 'no id' }] })
      .expect(400);
    expect(noId.body.details[0].field).toBe('items.1.id');
    const unknown = await t.http
      .put('/catalog/feed/items')
      .set(feed)
      .send({ items: [{ id: 'x', colour: 'red' }] })
      .expect(400);
    expect(unknown.body.message).toMatch(/^items\.0\.colour/);
    const dup = await t.http
      .put('/catalog/feed/items')
      .set(feed)
      .send({ items: [{ id: 'x' }, { id: 'x' }] })
      .expect(400);
    expect(dup.body.details[0].field).toBe('items.1.id');
    await t.http.put('/catalog/feed/items').set(feed).send({ items: [] }).expect(400);
    await t.http.put('/catalog/feed/items').set(feed).send({ items: 'nope' }).expect(400);
    await t.http
      .put('/catalog/feed/items')
      .set(feed)
      .send({ items: [{ id: 'x', stock: 1.5 }] })
      .expect(400);
    expect(await listAll(admin.headers, '&status=ALL')).toHaveLength(0);

    const five = Array.from({ length: 500 }, (_, n) => ({
      id: `bulk-${n}`,
      name: `Bulk ${n}`,
      price: n * 10,
      stock: n % 7,
    }));
    const ok = await t.http.put('/catalog/feed/items').set(feed).send({ items: five }).expect(200);
    expect(ok.body.created).toBe(500);
    expect(ok.body.items[499]).toEqual({ id: 'bulk-499', status: 'created' });
    const again = await t.http.put('/catalog/feed/items').set(feed).send({ items: five }).expect(200);
    expect(again.body).toMatchObject({ created: 0, updated: 500 });

    // 501 items, the last one invalid: the count is checked first.
    const tooMany = [...five, { id: 'bulk-500', price: { bad: true } }];
    const big = await t.http.put('/catalog/feed/items').set(feed).send({ items: tooMany }).expect(413);
    expect(big.body.code).toBe('payload_too_large');
    const count = await t.http.get('/catalog?limit=1&search=bulk-500').set(admin.headers).expect(200);
    expect(count.body.data).toHaveLength(0);
  });

  it('concurrent feed upserts with the same ids never duplicate', async () => {
    const admin = await signupWorkspace(t);
    const feed = await feedHeaders(admin);
    const items = Array.from({ length: 50 }, (_, n) => ({ id: `c-${n}`, name: `C${n}`, price: n }));
    const reversed = [...items].reverse().map((i) => ({ ...i, stock: 1 }));
    const results = await Promise.all(
      [items, reversed, items, reversed].map((batch) =>
        t.http.put('/catalog/feed/items').set(feed).send({ items: batch }),
      ),
    );
    for (const res of results) expect(res.status).toBe(200);
    expect(results.reduce((sum, r) => sum + (r.body.created as number), 0)).toBe(50);
    const all = await listAll(admin.headers, '&status=ALL');
    expect(all).toHaveLength(50);
    expect(new Set(all.map((i) => i.externalId)).size).toBe(50);
  });

  it('feed DELETE takes off sale by own id; the feed brings it back, a manual removal stays', async () => {
    const admin = await signupWorkspace(t);
    const feed = await feedHeaders(admin);
    await t.http
      .put('/catalog/feed/items')
      .set(feed)
      .send({
        items: [
          { id: 'd1', name: 'D1' },
          { id: 'd2', name: 'D2' },
        ],
      })
      .expect(200);
    const del = await t.http.delete('/catalog/feed/items/d1').set(feed).expect(200);
    expect(del.body).toEqual({ id: 'd1', status: 'OFF_SALE' });
    expect((await byExternalId(admin.headers, 'd1'))[0]!.status).toBe('OFF_SALE');
    expect((await t.http.delete('/catalog/feed/items/nope').set(feed).expect(404)).body.code).toBe('not_found');

    const [d2] = await byExternalId(admin.headers, 'd2');
    await t.http.delete(`/catalog/${d2!.id}`).set(admin.headers).expect(200);
    await t.http
      .put('/catalog/feed/items')
      .set(feed)
      .send({
        items: [
          { id: 'd1', price: 5 },
          { id: 'd2', price: 6 },
        ],
      })
      .expect(200);
    expect((await byExternalId(admin.headers, 'd1'))[0]).toMatchObject({ status: 'ON_SALE', price: 5, name: 'D1' });
    expect((await byExternalId(admin.headers, 'd2'))[0]).toMatchObject({ status: 'OFF_SALE', price: 6 });
  });

  it('keeps workspaces apart: items, ids and feed', async () => {
    const a = await signupWorkspace(t, 'A');
    const b = await signupWorkspace(t, 'B');
    const feedA = await feedHeaders(a);
    const feedB = await feedHeaders(b);
    await t.http
      .put('/catalog/feed/items')
      .set(feedA)
      .send({ items: [{ id: 'same', name: 'A item' }] })
      .expect(200);
    const resB = await t.http
      .put('/catalog/feed/items')
      .set(feedB)
      .send({ items: [{ id: 'same', name: 'B item' }] })
      .expect(200);
    expect(resB.body.created).toBe(1);
    const [itemA] = await byExternalId(a.headers, 'same');
    expect(itemA!.name).toBe('A item');
    expect(await listAll(b.headers, '&status=ALL')).toHaveLength(1);
    await t.http.get(`/catalog/${itemA!.id}`).set(b.headers).expect(404);
    await t.http.put(`/catalog/${itemA!.id}`).set(b.headers).send({ name: 'stolen' }).expect(404);
    await t.http.delete(`/catalog/${itemA!.id}`).set(b.headers).expect(404);
    await t.http.delete('/catalog/feed/items/same').set(feedB).expect(200);
    expect((await byExternalId(a.headers, 'same'))[0]).toMatchObject({ name: 'A item', status: 'ON_SALE' });
    // A token of A sent with B's workspace header is refused.
    await t.http
      .get('/catalog')
      .set({ ...feedA, 'x-workspace-id': b.workspaceId })
      .expect(403);
  });
});
