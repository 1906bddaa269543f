import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';

interface PreviewBody {
  importId: string;
  headers: string[];
  mapping: Record<string, string | null>;
  preview: { row: number; item: Record<string, unknown>; agentText: string }[];
  totalRows: number;
  errorCount: number;
  warnings: string[];
  delimiter: string;
}

describe('catalogue CSV import', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  async function upload(
    admin: Session,
    csv: string | Buffer,
    mapping?: Record<string, string | null>,
  ): Promise<PreviewBody> {
    const req = t.http.post('/catalog/import/preview').set(admin.headers);
    if (mapping) req.field('mapping', JSON.stringify(mapping));
    const res = await req.attach('file', Buffer.isBuffer(csv) ? csv : Buffer.from(csv, 'utf8'), 'products.csv');
    expect(res.status).toBe(201);
    return res.body as PreviewBody;
  }

  async function items(admin: Session): Promise<Record<string, unknown>[]> {
    const res = await t.http.get('/catalog?limit=100&status=ALL').set(admin.headers).expect(200);
    return res.body.data as Record<string, unknown>[];
  }

  it('serves the template', async () => {
    const admin = await signupWorkspace(t);
    const res = await t.http.get('/catalog/import/template').set(admin.headers).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.text.trim()).toBe('id,name,price,currency,description,sku,category,stock,images,keywords');
  });

  it('previews a BOM + semicolon file with odd headers without saving, re-maps, commits; the same file again updates', async () => {
    const admin = await signupWorkspace(t);
    const csv =
      '\uFEFFProduct Name;Unit price (THB);Qty;Image URLs;Notes;Product code\r\n' +
      '"Mug; large";"1,299.50";5;"https://img.test/1.jpg, https://img.test/2.jpg";Stoneware;MUG-1\r\n' +
      'Lamp;Call us;0;;;LAMP-1\r\n' +
      '\r\n' +
      'Chair;2500;;https://img.test/c.jpg;"Oak; ""Nordic"" style";CH-1\r\n';
    const preview = await upload(admin, csv);
    expect(preview.delimiter).toBe(';');
    expect(preview.headers).toEqual(['Product Name', 'Unit price (THB)', 'Qty', 'Image URLs', 'Notes', 'Product code']);
    expect(preview.mapping).toEqual({
      'Product Name': 'name',
      'Unit price (THB)': 'price',
      Qty: 'stock',
      'Image URLs': 'images',
      Notes: null,
      'Product code': 'sku',
    });
    expect(preview.totalRows).toBe(3);
    expect(preview.preview.map((p) => p.row)).toEqual([2, 3, 5]);
    expect(preview.preview[0]!.item).toMatchObject({
      name: 'Mug; large',
      price: 1299.5,
      priceDisplay: '1,299.50',
      stock: 5,
      sku: 'MUG-1',
    });
    expect(preview.preview[0]!.agentText).toBe('Mug; large\nPrice: 1,299.50\nStock: 5 in stock\nSKU: MUG-1\nImages: 2');
    expect(preview.preview[1]!.agentText).toContain('Price: Call us');
    expect(preview.preview[1]!.agentText).toContain('Stock: out of stock');
    expect(preview.preview[2]!.agentText).not.toContain('Stock');
    expect(preview.warnings.join('\n')).toContain('"Notes"');
    expect(await items(admin)).toHaveLength(0);

    const remapped = await t.http
      .post(`/catalog/import/${preview.importId}/preview`)
      .set(admin.headers)
      .send({ mapping: { Notes: 'description' } })
      .expect(200);
    expect(remapped.body.mapping.Notes).toBe('description');
    expect(remapped.body.preview[2].item.description).toBe('Oak; "Nordic" style');
    expect(await items(admin)).toHaveLength(0);

    const commit = await t.http
      .post(`/catalog/import/${preview.importId}/commit`)
      .set(admin.headers)
      .send({})
      .expect(200);
    expect(commit.body).toMatchObject({ created: 3, updated: 0, errorCount: 0, errors: [], totalRows: 3 });
    const saved = await items(admin);
    expect(saved).toHaveLength(3);
    expect(saved.find((i) => i.sku === 'CH-1')).toMatchObject({
      name: 'Chair',
      price: 2500,
      description: 'Oak; "Nordic" style',
      source: 'CSV',
      stock: null,
    });
    expect(
      (await t.http.post(`/catalog/import/${preview.importId}/commit`).set(admin.headers).send({}).expect(409)).body
        .code,
    ).toBe('conflict');

    const mug = saved.find((i) => i.sku === 'MUG-1')!;
    await t.http
      .put(`/catalog/${String(mug.id)}`)
      .set(admin.headers)
      .send({ keywords: ['cup'] })
      .expect(200);
    const again = await upload(admin, csv, { Notes: 'description' });
    const second = await t.http
      .post(`/catalog/import/${again.importId}/commit`)
      .set(admin.headers)
      .send({})
      .expect(200);
    expect(second.body).toMatchObject({ created: 0, updated: 3 });
    const after = await items(admin);
    expect(after).toHaveLength(3);
    expect(after.find((i) => i.sku === 'MUG-1')).toMatchObject({
      keywords: ['cup'],
      images: ['https://img.test/1.jpg', 'https://img.test/2.jpg'],
    });
  });

  it('reads comma files with quoted commas, matches by id, then SKU, then exact name, and reports bad rows by spreadsheet row', async () => {
    const admin = await signupWorkspace(t);
    const bySku = await t.http
      .post('/catalog')
      .set(admin.headers)
      .send({ name: 'Old desk name', sku: 'DESK-1' })
      .expect(201);
    const byName = await t.http.post('/catalog').set(admin.headers).send({ name: 'Bookshelf', price: 10 }).expect(201);
    const byId = await t.http
      .post('/catalog')
      .set(admin.headers)
      .send({ name: 'Old stool', externalId: 'S-1' })
      .expect(201);
    const csv = [
      'ID,Title,Price,SKU,Stock,Category',
      'S-1,Stool,"1,200",,3,Seating',
      ',"Desk, standing",899.99,DESK-1,,Office',
      ',Bookshelf,450,,12,',
      ',"Sofa,\nthree seats",1999,,many,Living',
      ',,,,,',
      'X-9,,5,,,',
      ',Armchair,€ 300,,2,Seating',
    ].join('\n');
    const preview = await upload(admin, csv);
    expect(preview.delimiter).toBe(',');
    expect(preview.mapping).toMatchObject({
      ID: 'id',
      Title: 'name',
      Price: 'price',
      SKU: 'sku',
      Stock: 'stock',
      Category: 'category',
    });
    expect(preview.totalRows).toBe(6);
    expect(preview.errorCount).toBe(1);
    expect(preview.warnings.join('\n')).toContain('Row 5: stock "many" is not a whole number');
    const commit = await t.http
      .post(`/catalog/import/${preview.importId}/commit`)
      .set(admin.headers)
      .send({})
      .expect(200);
    expect(commit.body.created).toBe(1);
    expect(commit.body.updated).toBe(3);
    expect(commit.body.errors).toEqual([
      { row: 5, message: 'stock "many" is not a whole number of 0 or more' },
      { row: 7, message: 'matches no product and has no name to create one with' },
    ]);
    const all = await items(admin);
    expect(all).toHaveLength(4);
    expect(all.find((i) => i.id === byId.body.id)).toMatchObject({
      name: 'Stool',
      price: 1200,
      priceDisplay: '1,200',
      stock: 3,
      category: 'Seating',
    });
    expect(all.find((i) => i.id === bySku.body.id)).toMatchObject({
      name: 'Desk, standing',
      price: 899.99,
      source: 'MANUAL',
    });
    expect(all.find((i) => i.id === byName.body.id)).toMatchObject({ price: 450, stock: 12 });
    expect(all.find((i) => i.name === 'Armchair')).toMatchObject({
      price: '€ 300',
      priceDisplay: '€ 300',
      source: 'CSV',
    });
  });

  it('a later batch matches what an earlier batch of the same commit created; the first 1,000 problems by row are listed', async () => {
    const admin = await signupWorkspace(t);
    // Batches of 1,000 rows (docs/catalogue.md). Rows 2-1001 create SKU-1..SKU-1000. Rows 1002-3001 (the next
    // batches) repeat SKU-1..SKU-1000 with a new price: matched by SKU, so updated, never created twice. Every
    // row of those batches with an even number has a bad stock cell, every row divisible by 3 has no name and
    // a SKU nothing has (nameless: reported when its batch is saved).
    const lines = ['sku,name,price,stock'];
    for (let i = 1; i <= 1000; i++) lines.push(`SKU-${i},Item ${i},10,1`);
    const badStock: number[] = [];
    const nameless: number[] = [];
    let updates = 0;
    for (let i = 1; i <= 2000; i++) {
      const row = 1001 + i; // header = 1, first product = 2
      if (row % 2 === 0) {
        badStock.push(row);
        lines.push(`SKU-${((i - 1) % 1000) + 1},Item,20,lots`);
      } else if (row % 3 === 0) {
        nameless.push(row);
        lines.push(`NEW-${i},,20,1`);
      } else {
        updates++;
        lines.push(`SKU-${((i - 1) % 1000) + 1},,${20 + i},2`);
      }
    }
    const preview = await upload(admin, `${lines.join('\n')}\n`);
    const commit = await t.http
      .post(`/catalog/import/${preview.importId}/commit`)
      .set(admin.headers)
      .send({})
      .expect(200);
    const problems = [...badStock, ...nameless].sort((a, b) => a - b);
    expect(commit.body).toMatchObject({
      totalRows: 3000,
      created: 1000,
      updated: updates,
      errorCount: problems.length,
    });
    const listed = commit.body.errors as { row: number; message: string }[];
    expect(listed.map((e) => e.row)).toEqual(problems.slice(0, 1000));
    expect(listed.find((e) => e.row === nameless[0])?.message).toMatch(/no name/);
    const dataSource = t.app.get(DataSource);
    const [count] = await dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM catalog_items WHERE workspace_id = $1`,
      [admin.workspaceId],
    );
    expect(count!.n).toBe(1000);
  });

  it('a commit of several batches is searchable as soon as it answers (search index merged in bulk)', async () => {
    const admin = await signupWorkspace(t);
    // 2,500 rows: three write batches of at most 1,000 (docs/catalogue.md). Every 7th row is "Walnut".
    const lines = ['sku,name,description,price'];
    for (let i = 1; i <= 2500; i++)
      lines.push(`BULK-${i},Shelf ${i},${i % 7 === 0 ? 'Walnut' : 'Pine'} board number ${i},${100 + i}`);
    const preview = await upload(admin, `${lines.join('\n')}\n`);
    expect(preview.totalRows).toBe(2500);
    const commit = await t.http
      .post(`/catalog/import/${preview.importId}/commit`)
      .set(admin.headers)
      .send({})
      .expect(200);
    expect(commit.body).toMatchObject({ created: 2500, updated: 0, errorCount: 0 });

    async function search(term: string): Promise<Record<string, unknown>[]> {
      const found: Record<string, unknown>[] = [];
      let cursor: string | null = null;
      do {
        const res = await t.http
          .get(`/catalog?search=${encodeURIComponent(term)}&limit=100${cursor ? `&cursor=${cursor}` : ''}`)
          .set(admin.headers)
          .expect(200);
        found.push(...(res.body.data as Record<string, unknown>[]));
        cursor = res.body.nextCursor as string | null;
      } while (cursor);
      return found;
    }
    // floor(2500 / 7) = 357 walnut rows, from every batch.
    const walnut = await search('walnut');
    expect(walnut).toHaveLength(357);
    expect(new Set(walnut.map((i) => i.sku))).toEqual(
      new Set(Array.from({ length: 357 }, (_, k) => `BULK-${7 * (k + 1)}`)),
    );
    // The first row, one from the middle batch and the last one, by SKU and by name.
    for (const i of [1, 1500, 2500]) {
      expect((await search(`BULK-${i}`)).map((it) => it.sku)).toContain(`BULK-${i}`);
      expect((await search(`Shelf ${i}`)).find((it) => it.sku === `BULK-${i}`)).toMatchObject({
        name: `Shelf ${i}`,
        price: 100 + i,
      });
    }
    // "board number 2499" is in one description only.
    expect((await search('board number 2499')).map((it) => it.sku)).toEqual(['BULK-2499']);

    // The same file again updates in place: still one item per row, the search finds each once.
    const again = await upload(admin, `${lines.join('\n').replace(/Pine board/g, 'Birch board')}\n`);
    const second = await t.http
      .post(`/catalog/import/${again.importId}/commit`)
      .set(admin.headers)
      .send({})
      .expect(200);
    expect(second.body).toMatchObject({ created: 0, updated: 2500 });
    expect(await search('walnut')).toHaveLength(357);
    expect(await search('pine')).toHaveLength(0);
    // 2500 - 357 = 2143 birch rows.
    expect(await search('birch board')).toHaveLength(2143);
  });

  it('validates mappings and files; enforces the size limit with 413; sessions expire and stay in their workspace', async () => {
    const admin = await signupWorkspace(t);
    const other = await signupWorkspace(t);
    const preview = await upload(admin, 'name,price\nA,1\n');
    const url = `/catalog/import/${preview.importId}`;
    await t.http
      .post(`${url}/preview`)
      .set(admin.headers)
      .send({ mapping: { Nope: 'name' } })
      .expect(400);
    await t.http
      .post(`${url}/preview`)
      .set(admin.headers)
      .send({ mapping: { price: 'colour' } })
      .expect(400);
    const twice = await t.http
      .post(`${url}/preview`)
      .set(admin.headers)
      .send({ mapping: { name: 'price', price: 'price' } })
      .expect(400);
    expect(twice.body.message).toContain('only images and keywords');
    await t.http
      .post(`${url}/commit`)
      .set(admin.headers)
      .send({ mapping: { name: null } })
      .expect(400);

    await t.http.post(`${url}/preview`).set(other.headers).send({ mapping: {} }).expect(404);
    await t.http.post(`${url}/commit`).set(other.headers).send({}).expect(404);
    await t.http.post('/catalog/import/not-a-uuid/commit').set(admin.headers).send({}).expect(404);

    await t.http.post('/catalog/import/preview').set(admin.headers).expect(400);
    const latin1 = Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0x43, 0x61, 0x66, 0xe9, 0x0a]);
    const notUtf8 = await t.http
      .post('/catalog/import/preview')
      .set(admin.headers)
      .attach('file', latin1, 'x.csv')
      .expect(400);
    expect(notUtf8.body.message).toContain('UTF-8');
    await t.http
      .post('/catalog/import/preview')
      .set(admin.headers)
      .attach('file', Buffer.from('name,price\n'), 'x.csv')
      .expect(400);

    const huge = Buffer.alloc(50 * 1024 * 1024 + 10, 0x61);
    const tooBig = await t.http.post('/catalog/import/preview').set(admin.headers).attach('file', huge, 'big.csv');
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe('payload_too_large');

    await t.app
      .get(DataSource)
      .query(`UPDATE catalog_imports SET expires_at = now() - interval '1 second' WHERE id = $1`, [preview.importId]);
    await t.http.post(`${url}/commit`).set(admin.headers).send({}).expect(404);
    expect(await items(admin)).toHaveLength(0);
  });
});
