import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';

interface ImportResult {
  created: number;
  updated: number;
  skipped: number;
  errors: { row: number; message: string }[];
  errorCount: number;
  dryRun: boolean;
  mapping: Record<string, string | null>;
}

describe('contacts: CSV import', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT: '10000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  function upload(s: Session, csv: string | Buffer, fields: Record<string, string> = {}) {
    let req = t.http.post('/contacts/import').set(s.headers);
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    return req.attach('file', typeof csv === 'string' ? Buffer.from(csv, 'utf8') : csv, {
      filename: 'contacts.csv',
      contentType: 'text/csv',
    });
  }

  async function importOk(
    s: Session,
    csv: string | Buffer,
    fields: Record<string, string> = {},
  ): Promise<ImportResult> {
    const res = await upload(s, csv, fields);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: expect.anything() });
    return res.body;
  }

  async function all(s: Session, qs = ''): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: Record<string, unknown>[]; nextCursor: string | null } } = await t.http
        .get(`/contacts?limit=100${qs}${cursor ? `&cursor=${cursor}` : ''}`)
        .set(s.headers)
        .expect(200);
      out.push(...res.body.data);
      cursor = res.body.nextCursor;
    } while (cursor);
    return out;
  }

  async function countRows(table: string, workspaceId: string): Promise<number> {
    const rows: { n: number }[] = await t.app
      .get(DataSource)
      .query(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [workspaceId]);
    return rows[0]!.n;
  }

  it('imports a UTF-8 file with a BOM, maps headers by name, creates companies and typed custom fields', async () => {
    const s = await signupWorkspace(t);
    await t.http
      .post('/contacts/fields')
      .set(s.headers)
      .send({ key: 'plan', label: 'Plan', type: 'SELECT', options: ['Free', 'Pro'] })
      .expect(201);
    await t.http
      .post('/contacts/fields')
      .set(s.headers)
      .send({ key: 'lifetime_value', label: 'Lifetime value', type: 'NUMBER' })
      .expect(201);
    const csv =
      '\uFEFFFull Name,E-mail,Phone Number,Company,Tags,Plan,Lifetime Value,Favourite colour\r\n' +
      'José Álvarez,Jose@Example.com,+34 600 000 001,Acme,"vip, Lead",pro,"1,250.50",blue\r\n' +
      'Ann Lee,ann@example.com,,acme,,,,\r\n' +
      'Bo,,555-0101,Globex,,Free,3,\r\n';
    const result = await importOk(s, csv);
    expect(result).toEqual({
      created: 3,
      updated: 0,
      skipped: 0,
      errors: [],
      errorCount: 0,
      dryRun: false,
      mapping: {
        'Full Name': 'name',
        'E-mail': 'email',
        'Phone Number': 'phone',
        Company: 'company',
        Tags: 'tags',
        Plan: 'customFields.plan',
        'Lifetime Value': 'customFields.lifetime_value',
        'Favourite colour': null,
      },
    });
    const [jose] = await all(s, '&email=jose@example.com');
    expect(jose).toMatchObject({
      name: 'José Álvarez',
      email: 'jose@example.com',
      phone: '+34 600 000 001',
      tags: ['vip', 'lead'],
      customFields: { plan: 'Pro', lifetime_value: 1250.5 },
      company: { name: 'Acme' },
    });
    const [ann] = await all(s, '&email=ann@example.com');
    expect(ann!.companyId).toBe(jose!.companyId);
    const companies = await t.http.get('/contacts/companies').set(s.headers).expect(200);
    expect(companies.body.data.map((c: { name: string }) => c.name).sort()).toEqual(['Acme', 'Globex']);
  });

  it('detects semicolons and keeps quoted delimiters and line breaks inside cells', async () => {
    const s = await signupWorkspace(t);
    const semi = await importOk(
      s,
      'name;email;tags\n"Doe; Jane";jane@example.com;"a, b; c"\n"Smith, John";john@example.com;x\n',
    );
    expect(semi).toMatchObject({ created: 2, errors: [] });
    expect((await all(s, '&email=jane@example.com'))[0]).toMatchObject({ name: 'Doe; Jane', tags: ['a', 'b', 'c'] });
    expect((await all(s, '&email=john@example.com'))[0]).toMatchObject({ name: 'Smith, John' });
    const comma = await importOk(
      s,
      'name,email\n"Brown, ""Bobby""",bobby@example.com\n"Multi\nLine",multi@example.com\n',
    );
    expect(comma).toMatchObject({ created: 2, errors: [] });
    expect((await all(s, '&email=bobby@example.com'))[0]!.name).toBe('Brown, "Bobby"');
    expect((await all(s, '&email=multi@example.com'))[0]!.name).toBe('Multi\nLine');
  });

  it('matches existing contacts by email, then by phone digits, and updates only the cells that have values', async () => {
    const s = await signupWorkspace(t);
    await t.http.post('/contacts/fields').set(s.headers).send({ key: 'tier', label: 'Tier', type: 'TEXT' }).expect(201);
    await t.http
      .post('/contacts/fields')
      .set(s.headers)
      .send({ key: 'score', label: 'Score', type: 'NUMBER' })
      .expect(201);
    const byEmail = await t.http
      .post('/contacts')
      .set(s.headers)
      .send({
        name: 'Old Name',
        email: 'match@example.com',
        phone: '111 222 333',
        tags: ['existing'],
        customFields: { tier: 'gold', score: 1 },
      })
      .expect(201);
    const byPhone = await t.http
      .post('/contacts')
      .set(s.headers)
      .send({ name: 'Phone Only', phone: '+1 (555) 010-0200' })
      .expect(201);
    const csv =
      'name,email,phone,tags,score\n' +
      'New Name,MATCH@example.com,,new,2\n' + // email match: name, tags, score change; phone and tier stay
      ',,1-555-010-0200,,\n' + // phone match by digits: nothing but the key
      'Fresh,fresh@example.com,,,\n';
    const result = await importOk(s, csv);
    expect(result).toMatchObject({ created: 1, updated: 2, skipped: 0, errors: [] });
    const updated = await t.http.get(`/contacts/${byEmail.body.id}`).set(s.headers).expect(200);
    expect(updated.body).toMatchObject({
      name: 'New Name',
      email: 'match@example.com',
      phone: '111 222 333',
      tags: ['existing', 'new'],
      customFields: { tier: 'gold', score: 2 },
    });
    expect(Date.parse(updated.body.updatedAt)).toBeGreaterThan(Date.parse(byEmail.body.updatedAt));
    expect((await t.http.get(`/contacts/${byPhone.body.id}`).set(s.headers).expect(200)).body).toMatchObject({
      name: 'Phone Only',
      phone: '+1 (555) 010-0200',
    });
    // The same file again: everything matches now.
    expect(await importOk(s, csv)).toMatchObject({ created: 0, updated: 3 });
    expect(await countRows('contacts', s.workspaceId)).toBe(3);
  });

  it('treats rows of one file that share an email or phone as one contact', async () => {
    const s = await signupWorkspace(t);
    const csv =
      'name,email,phone,tags\nFirst,same@example.com,,a\nSecond,same@example.com,555 0300,b\nThird,,5550300,c\n';
    expect(await importOk(s, csv, { dryRun: 'true' })).toMatchObject({ created: 1, updated: 2, dryRun: true });
    expect(await countRows('contacts', s.workspaceId)).toBe(0);
    expect(await importOk(s, csv)).toMatchObject({ created: 1, updated: 2, dryRun: false });
    const contacts = await all(s);
    expect(contacts).toHaveLength(1);
    // The third row's phone has the same digits as the stored one: the stored spelling stays.
    expect(contacts[0]).toMatchObject({
      name: 'Third',
      email: 'same@example.com',
      phone: '555 0300',
      tags: ['a', 'b', 'c'],
    });
  });

  it('applies a mapping override and reports bad mappings with 400', async () => {
    const s = await signupWorkspace(t);
    await t.http
      .post('/contacts/fields')
      .set(s.headers)
      .send({ key: 'vat_id', label: 'VAT', type: 'TEXT' })
      .expect(201);
    const csv = 'Contact,Mail 2,Email,Notes,Tax\nKim,kim@work.test,kim@home.test,ignore me,DE123\n';
    const result = await importOk(s, csv, {
      mapping: JSON.stringify({ 'Mail 2': 'email', Contact: 'name', Notes: null, Tax: 'vat_id' }),
    });
    expect(result.mapping).toEqual({
      Contact: 'name',
      'Mail 2': 'email',
      Email: null,
      Notes: null,
      Tax: 'customFields.vat_id',
    });
    expect((await all(s))[0]).toMatchObject({ name: 'Kim', email: 'kim@work.test', customFields: { vat_id: 'DE123' } });

    const badJson = await upload(s, csv, { mapping: '{not json' }).expect(400);
    expect(badJson.body).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'mapping', message: 'must be a JSON object' }],
    });
    const badTarget = await upload(s, csv, { mapping: JSON.stringify({ Notes: 'shoe_size', Nope: 'name' }) }).expect(
      400,
    );
    expect(badTarget.body.details.map((d: { field: string }) => d.field)).toEqual(['mapping.Notes', 'mapping.Nope']);
    const twice = await upload(s, csv, { mapping: JSON.stringify({ 'Mail 2': 'email', Email: 'email' }) }).expect(400);
    expect(twice.body.code).toBe('validation_failed');
    await upload(s, csv, { dryRun: 'maybe' }).expect(400);
    await upload(s, csv, { unknown: 'x' }).expect(400);
    expect(await countRows('contacts', s.workspaceId)).toBe(1);
  });

  it('dry run reports the same counts and errors as a real run and writes nothing', async () => {
    const s = await signupWorkspace(t);
    await t.http.post('/contacts').set(s.headers).send({ name: 'Existing', email: 'exists@example.com' }).expect(201);
    const csv =
      'name,email,company\nExisting Renamed,exists@example.com,NewCo\nNew One,new1@example.com,NewCo\nBad,not-an-email,\n,,\nNobody,,\n';
    const dry = await importOk(s, csv, { dryRun: 'true' });
    expect(dry).toMatchObject({ created: 2, updated: 1, skipped: 0, errorCount: 1, dryRun: true });
    expect(await countRows('contacts', s.workspaceId)).toBe(1);
    expect(await countRows('companies', s.workspaceId)).toBe(0);
    expect((await all(s))[0]).toMatchObject({ name: 'Existing', companyId: null });
    const real = await importOk(s, csv, { dryRun: 'false' });
    expect({ ...real, dryRun: true }).toEqual(dry);
    expect(await countRows('contacts', s.workspaceId)).toBe(3);
    expect(await countRows('companies', s.workspaceId)).toBe(1);
  });

  it('reports bad rows with the row number a spreadsheet shows and saves the good rows', async () => {
    const s = await signupWorkspace(t);
    await t.http
      .post('/contacts/fields')
      .set(s.headers)
      .send({ key: 'plan', label: 'Plan', type: 'SELECT', options: ['free', 'pro'], required: true })
      .expect(201);
    await t.http
      .post('/contacts/fields')
      .set(s.headers)
      .send({ key: 'seats', label: 'Seats', type: 'NUMBER' })
      .expect(201);
    await t.http
      .post('/contacts')
      .set(s.headers)
      .send({ name: 'Old', email: 'old@example.com', customFields: { plan: 'free' } })
      .expect(201);
    const lines = [
      'name,email,phone,plan,seats', // 1
      'Good One,good1@example.com,,pro,1', // 2
      'Bad Email,not-an-email,,pro,', // 3
      '"Multi', // 4 (one spreadsheet row: the cell spans two lines)
      'line",multi@example.com,,free,', // (row 4 continued)
      '', // 5: blank row, ignored
      'Bad Phone,phone@example.com,call me,pro,', // 6
      'Bad Plan,plan@example.com,,gold,', // 7
      'No Plan,noplan@example.com,,,', // 8: a new contact needs the required field
      ',old@example.com,,,7', // 9: an update does not
      'Bad Seats,seats@example.com,,pro,many', // 10
      ',,,pro,', // 11: nothing identifies a contact → skipped
      '"Unterminated,quote@example.com,,pro,', // 12
    ];
    const result = await importOk(s, lines.join('\n'));
    expect(result).toEqual({
      created: 2,
      updated: 1,
      skipped: 1,
      errorCount: 6,
      dryRun: false,
      mapping: { name: 'name', email: 'email', phone: 'phone', plan: 'customFields.plan', seats: 'customFields.seats' },
      errors: [
        { row: 3, message: 'email "not-an-email" is not a valid email address' },
        { row: 6, message: 'phone "call me" is not a valid phone number' },
        { row: 7, message: 'customFields.plan must be one of: free, pro' },
        { row: 8, message: 'customFields.plan is required' },
        { row: 10, message: 'customFields.seats must be a number' },
        { row: 12, message: expect.stringMatching(/quote/i) },
      ],
    });
    const names = (await all(s)).map((c) => c.name).sort();
    expect(names).toEqual(['Good One', 'Multi\nline', 'Old']);
    expect((await all(s, '&email=old@example.com'))[0]!.customFields).toEqual({ plan: 'free', seats: 7 });
  });

  it('refuses a missing, empty, non-UTF-8 or unmappable file with 400 and an oversized one with 413', async () => {
    const s = await signupWorkspace(t);
    const missing = await t.http.post('/contacts/import').set(s.headers).field('dryRun', 'true').expect(400);
    expect(missing.body).toMatchObject({ code: 'validation_failed', details: [{ field: 'file' }] });
    await upload(s, '').expect(400);
    await upload(s, '\uFEFF\n').expect(400);
    const latin1 = await upload(s, Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0x4a, 0x6f, 0x73, 0xe9, 0x0a])).expect(
      400,
    );
    expect(latin1.body.details).toEqual([{ field: 'file', message: 'must be UTF-8 text' }]);
    const noKey = await upload(s, 'colour,size\nred,3\n').expect(400);
    expect(noKey.body.message).toMatch(/no name, email or phone column/);
    await t.http
      .post('/contacts/import')
      .set(s.headers)
      .attach('upload', Buffer.from('name\nx\n'), 'c.csv')
      .expect(400);

    const row = 'Some Body,somebody@example.com,+1 555 0100\n';
    const big = Buffer.from('name,email,phone\n' + row.repeat(Math.ceil((20 * 1024 * 1024) / row.length) + 10));
    expect(big.length).toBeGreaterThan(20 * 1024 * 1024);
    const tooLarge = await upload(s, big);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.code).toBe('payload_too_large');
    expect(await countRows('contacts', s.workspaceId)).toBe(0);
  });

  it('keeps imports inside the workspace: rows never match or change another workspace’s contacts', async () => {
    const a = await signupWorkspace(t);
    const b = await signupWorkspace(t);
    const theirs = await t.http
      .post('/contacts')
      .set(b.headers)
      .send({ name: 'B Person', email: 'shared@example.com' })
      .expect(201);
    await t.http.post('/contacts/companies').set(b.headers).send({ name: 'Shared Co' }).expect(201);
    expect(await importOk(a, 'name,email,company\nA Person,shared@example.com,Shared Co\n')).toMatchObject({
      created: 1,
      updated: 0,
    });
    expect((await t.http.get(`/contacts/${theirs.body.id}`).set(b.headers).expect(200)).body).toMatchObject({
      name: 'B Person',
      companyId: null,
    });
    expect(await countRows('companies', a.workspaceId)).toBe(1);
    expect(await countRows('companies', b.workspaceId)).toBe(1);
  });

  it('imports 10,000 rows in batches, then updates them all on a second run', async () => {
    const s = await signupWorkspace(t);
    await t.http
      .post('/contacts/fields')
      .set(s.headers)
      .send({ key: 'plan', label: 'Plan', type: 'SELECT', options: ['free', 'pro'] })
      .expect(201);
    const lines = ['name,email,phone,company,tags,plan'];
    for (let i = 0; i < 10_000; i++) {
      lines.push(
        `"Person ${i}, Jr.",person${i}@example.com,+1 555 ${String(i).padStart(7, '0')},Company ${i % 50},"t${i % 7}, bulk",${i % 2 ? 'pro' : 'free'}`,
      );
    }
    const csv = lines.join('\n');
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 20);
    const before = process.memoryUsage().rss;
    const started = Date.now();
    const first = await importOk(s, csv);
    const firstMs = Date.now() - started;
    const secondStarted = Date.now();
    const second = await importOk(s, csv);
    const secondMs = Date.now() - secondStarted;
    clearInterval(sampler);
    console.log(
      `contacts import, ${(csv.length / 1024 / 1024).toFixed(1)} MB, 10,000 rows: create ${firstMs} ms, update ${secondMs} ms; ` +
        `rss before ${(before / 1048576).toFixed(0)} MB, peak ${(peak / 1048576).toFixed(0)} MB (whole test process)`,
    );
    expect(first).toMatchObject({ created: 10_000, updated: 0, skipped: 0, errorCount: 0 });
    expect(second).toMatchObject({ created: 0, updated: 10_000, skipped: 0, errorCount: 0 });
    expect(await countRows('contacts', s.workspaceId)).toBe(10_000);
    expect(await countRows('companies', s.workspaceId)).toBe(50);
    const [p] = await all(s, '&email=person9999@example.com');
    expect(p).toMatchObject({
      name: 'Person 9999, Jr.',
      phone: '+1 555 0009999',
      tags: ['t3', 'bulk'],
      customFields: { plan: 'pro' },
      company: { name: 'Company 49' },
    });
    expect((await t.http.get('/contacts?tag=t0&limit=1').set(s.headers).expect(200)).body.data).toHaveLength(1);
  });
});
