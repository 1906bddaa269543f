import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { EventBus, type DomainEvent } from 'src/core/events/event-bus';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, addMember, apiToken, signupWorkspace } from '../../utils/sessions';

describe('contacts: CRUD, filters, paging, notes', () => {
  let t: TestApp;
  const events: DomainEvent[] = [];
  beforeAll(async () => {
    // Every test signs up fresh workspaces; signups are rate limited per IP.
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT: '10000' } });
    t.app.get(EventBus).subscribe('*', (e) => {
      events.push(e);
    });
  });
  afterAll(async () => {
    await t.close();
  });

  async function create(s: Session, body: Record<string, unknown>): Promise<Record<string, unknown> & { id: string }> {
    const res = await t.http.post('/contacts').set(s.headers).send(body).expect(201);
    return res.body;
  }

  it('creates a contact with every field, lower-cases the email and keeps the phone as sent', async () => {
    const s = await signupWorkspace(t);
    const company = await t.http
      .post('/contacts/companies')
      .set(s.headers)
      .send({ name: 'Acme', domain: 'acme.test' })
      .expect(201);
    const contact = await create(s, {
      name: '  Ada Lovelace ',
      email: 'Ada@Example.COM',
      phone: '+44 (20) 7946-0958',
      avatarUrl: 'https://img.example.com/ada.png',
      companyId: company.body.id,
      tags: ['VIP', 'vip', ' lead '],
      identities: [{ channelType: 'telegram', channelId: 'bot-1', externalId: '42' }],
    });
    expect(contact).toMatchObject({
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+44 (20) 7946-0958',
      avatarUrl: 'https://img.example.com/ada.png',
      companyId: company.body.id,
      company: { id: company.body.id, name: 'Acme' },
      customFields: {},
      tags: ['vip', 'lead'],
      identities: [{ channelType: 'TELEGRAM', channelId: 'bot-1', externalId: '42' }],
    });
    expect(contact.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(contact.updatedAt).toBe(contact.createdAt);
    const got = await t.http.get(`/contacts/${contact.id}`).set(s.headers).expect(200);
    expect(got.body).toEqual({ ...contact, notes: [] });
    expect(events).toContainEqual(
      expect.objectContaining({ name: 'contact.created', workspaceId: s.workspaceId, data: { contact } }),
    );
  });

  it('updates only the fields sent, clears with null, replaces identities, and publishes contact.updated', async () => {
    const s = await signupWorkspace(t);
    const contact = await create(s, {
      name: 'Grace',
      email: 'grace@example.com',
      phone: '555 0100',
      tags: ['a'],
      identities: [{ channelType: 'LINE', channelId: 'c1', externalId: 'u1' }],
    });
    const updated = await t.http
      .put(`/contacts/${contact.id}`)
      .set(s.headers)
      .send({
        phone: null,
        tags: ['b', 'C'],
        identities: [{ channelType: 'CUSTOM', channelId: 'c2', externalId: 'x' }],
      })
      .expect(200);
    expect(updated.body).toMatchObject({
      id: contact.id,
      name: 'Grace',
      email: 'grace@example.com',
      phone: null,
      tags: ['b', 'c'],
      identities: [{ channelType: 'CUSTOM', channelId: 'c2', externalId: 'x' }],
    });
    expect(Date.parse(updated.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(String(contact.updatedAt)));
    expect(events).toContainEqual(
      expect.objectContaining({ name: 'contact.updated', data: { contact: updated.body } }),
    );
    const same = await t.http.put(`/contacts/${contact.id}`).set(s.headers).send({}).expect(200);
    expect(same.body.name).toBe('Grace');
    // Clearing everything that identifies a contact is refused.
    const bare = await create(s, { name: 'Only name' });
    const refused = await t.http.put(`/contacts/${bare.id}`).set(s.headers).send({ name: null }).expect(400);
    expect(refused.body.code).toBe('validation_failed');
    expect((await t.http.get(`/contacts/${bare.id}`).set(s.headers).expect(200)).body.name).toBe('Only name');
  });

  it('deletes with 204, then 404 everywhere', async () => {
    const s = await signupWorkspace(t);
    const contact = await create(s, {
      name: 'Temp',
      identities: [{ channelType: 'LINE', channelId: 'c', externalId: 'gone' }],
    });
    await t.http.post(`/contacts/${contact.id}/notes`).set(s.headers).send({ text: 'bye' }).expect(201);
    await t.http.delete(`/contacts/${contact.id}`).set(s.headers).expect(204);
    await t.http.get(`/contacts/${contact.id}`).set(s.headers).expect(404);
    await t.http.put(`/contacts/${contact.id}`).set(s.headers).send({ name: 'x' }).expect(404);
    await t.http.delete(`/contacts/${contact.id}`).set(s.headers).expect(404);
    await t.http.post(`/contacts/${contact.id}/notes`).set(s.headers).send({ text: 'x' }).expect(404);
    // Its identity is free again.
    await create(s, { name: 'New', identities: [{ channelType: 'LINE', channelId: 'c', externalId: 'gone' }] });
  });

  it('adds notes with the caller as author; GET /contacts/:id lists them newest first', async () => {
    const s = await signupWorkspace(t);
    const contact = await create(s, { name: 'Noted' });
    const first = await t.http
      .post(`/contacts/${contact.id}/notes`)
      .set(s.headers)
      .send({ text: ' first ' })
      .expect(201);
    expect(first.body).toMatchObject({ contactId: contact.id, authorId: s.userId, text: 'first' });
    const { headers } = await apiToken(t, s);
    const second = await t.http
      .post(`/contacts/${contact.id}/notes`)
      .set(headers)
      .send({ text: 'by token' })
      .expect(201);
    expect(second.body.authorId).toBeNull();
    const got = await t.http.get(`/contacts/${contact.id}`).set(s.headers).expect(200);
    expect(got.body.notes.map((n: { text: string }) => n.text)).toEqual(['by token', 'first']);
    const empty = await t.http.post(`/contacts/${contact.id}/notes`).set(s.headers).send({ text: '   ' }).expect(400);
    expect(empty.body.details[0].field).toBe('text');
    await t.http.post(`/contacts/${contact.id}/notes`).set(s.headers).send({ text: 'x', pinned: true }).expect(400);
  });

  it('lists newest first with keyset paging that is stable under inserts', async () => {
    const s = await signupWorkspace(t);
    const made: { id: string; createdAt: string }[] = [];
    for (let i = 0; i < 7; i++) {
      const c = await create(s, { name: `P${i}` });
      made.push({ id: c.id, createdAt: String(c.createdAt) });
    }
    // Newest first; rows created in the same millisecond are ordered by id (descending).
    const ids = [...made]
      .sort((x, y) => (x.createdAt === y.createdAt ? (x.id < y.id ? -1 : 1) : x.createdAt < y.createdAt ? -1 : 1))
      .map((c) => c.id);
    const page1 = await t.http.get('/contacts?limit=3').set(s.headers).expect(200);
    expect(page1.body.data.map((c: { id: string }) => c.id)).toEqual([ids[6], ids[5], ids[4]]);
    expect(page1.body.nextCursor).toEqual(expect.any(String));
    await create(s, { name: 'inserted meanwhile' });
    const page2 = await t.http.get(`/contacts?limit=3&cursor=${page1.body.nextCursor}`).set(s.headers).expect(200);
    expect(page2.body.data.map((c: { id: string }) => c.id)).toEqual([ids[3], ids[2], ids[1]]);
    const page3 = await t.http.get(`/contacts?limit=3&cursor=${page2.body.nextCursor}`).set(s.headers).expect(200);
    expect(page3.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    await t.http.get('/contacts?limit=0').set(s.headers).expect(400);
    await t.http.get('/contacts?limit=101').set(s.headers).expect(400);
    const bad = await t.http.get('/contacts?cursor=nonsense').set(s.headers).expect(400);
    expect(bad.body.code).toBe('validation_failed');
  });

  it('filters by search, companyId, tag, email, phone and from/to', async () => {
    const s = await signupWorkspace(t);
    const acme = await t.http.post('/contacts/companies').set(s.headers).send({ name: 'Acme' }).expect(201);
    const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
    const ada = await create(s, {
      name: 'Ada Lovelace',
      email: 'ada@math.test',
      phone: '+1 (555) 010-0001',
      tags: ['vip'],
      companyId: acme.body.id,
    });
    await pause();
    const bob = await create(s, { name: 'Bob 100%_real', email: 'bob@example.com', phone: '555-0002', tags: ['lead'] });
    await pause();
    const carol = await create(s, { name: 'Carol', email: 'carol@MATH.test' });
    const names = async (qs: string): Promise<string[]> =>
      (await t.http.get(`/contacts?${qs}`).set(s.headers).expect(200)).body.data
        .map((c: { name: string }) => c.name)
        .sort();
    expect(await names('search=LOVELACE')).toEqual(['Ada Lovelace']);
    expect(await names('search=math.test')).toEqual(['Ada Lovelace', 'Carol']);
    expect(await names('search=5550100')).toEqual(['Ada Lovelace']);
    expect(await names('search=010-0001')).toEqual(['Ada Lovelace']);
    expect(await names(`search=${encodeURIComponent('%_r')}`)).toEqual(['Bob 100%_real']);
    expect(await names('search=_')).toEqual(['Bob 100%_real']);
    expect(await names('search=%25')).toEqual(['Bob 100%_real']);
    expect(await names(`companyId=${acme.body.id}`)).toEqual(['Ada Lovelace']);
    expect(await names('tag=VIP')).toEqual(['Ada Lovelace']);
    expect(await names('email=CAROL@math.test')).toEqual(['Carol']);
    expect(await names('phone=15550100001')).toEqual(['Ada Lovelace']);
    expect(await names(`phone=${encodeURIComponent('+1 555 010 0001')}`)).toEqual(['Ada Lovelace']);
    expect(await names('phone=5550002')).toEqual(['Bob 100%_real']);
    const bobCreated = String(bob.createdAt);
    expect(await names(`from=${bobCreated}`)).toEqual(['Bob 100%_real', 'Carol']);
    expect(await names(`to=${bobCreated}`)).toEqual(['Ada Lovelace']);
    expect(await names(`from=${ada.createdAt}&to=${carol.createdAt}`)).toEqual(['Ada Lovelace', 'Bob 100%_real']);
    for (const bad of ['companyId=123', 'from=yesterday', 'phone=abc', 'unknown=1']) {
      const res = await t.http.get(`/contacts?${bad}`).set(s.headers).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(Array.isArray(res.body.details)).toBe(true);
    }
  });

  it('refuses bad input with 400 validation_failed naming the field', async () => {
    const s = await signupWorkspace(t);
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 42 }, 'name'],
      [{ name: 'x', email: 'not-an-email' }, 'email'],
      [{ name: 'x', phone: 'call me maybe' }, 'phone'],
      [{ name: 'x', phone: 5550100 }, 'phone'],
      [{ name: 'x', avatarUrl: 'ftp://x/y.png' }, 'avatarUrl'],
      [{ name: 'x', tags: 'vip' }, 'tags'],
      [{ name: 'x', tags: [1] }, 'tags'],
      [{ name: 'x', customFields: ['a'] }, 'customFields'],
      [{ name: 'x', customFields: null }, 'customFields'],
      [
        { name: 'x', identities: [{ channelType: 'FAX', channelId: 'a', externalId: 'b' }] },
        'identities.0.channelType',
      ],
      [{ name: 'x', identities: [{ channelType: 'LINE', channelId: 'a' }] }, 'identities.0.externalId'],
      [
        { name: 'x', identities: [{ channelType: 'LINE', channelId: 'a', externalId: 'b', extra: 1 }] },
        'identities.0.extra',
      ],
      [{ name: 'x', workspaceId: randomUUID() }, 'workspaceId'],
      [{ name: 'x', nickname: 'y' }, 'nickname'],
      [{}, 'name'],
      [{ name: '   ' }, 'name'],
    ];
    for (const [body, field] of cases) {
      const res = await t.http.post('/contacts').set(s.headers).send(body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 400,
        code: 'validation_failed',
      });
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const json = await t.http
      .post('/contacts')
      .set(s.headers)
      .set('content-type', 'application/json')
      .send('{"name":')
      .expect(400);
    expect(json.body.code).toBe('invalid_json');
    expect((await t.http.get('/contacts').set(s.headers).expect(200)).body.data).toEqual([]);
  });

  it('answers 404 for ids that are not UUIDs and for unknown companies', async () => {
    const s = await signupWorkspace(t);
    for (const path of ['/contacts/123', '/contacts/not-a-uuid']) {
      const res = await t.http.get(path).set(s.headers).expect(404);
      expect(res.body.code).toBe('not_found');
      await t.http.put(path).set(s.headers).send({ name: 'x' }).expect(404);
      await t.http.delete(path).set(s.headers).expect(404);
      await t.http.post(`${path}/notes`).set(s.headers).send({ text: 'x' }).expect(404);
    }
    await t.http.get(`/contacts/${randomUUID()}`).set(s.headers).expect(404);
    await t.http.post('/contacts').set(s.headers).send({ name: 'x', companyId: randomUUID() }).expect(404);
    await t.http.post('/contacts').set(s.headers).send({ name: 'x', companyId: 'acme' }).expect(404);
  });

  it('refuses an identity already held by another contact with 409', async () => {
    const s = await signupWorkspace(t);
    const identity = { channelType: 'WHATSAPP', channelId: 'wa-1', externalId: '+15550100' };
    const first = await create(s, { name: 'First', identities: [identity] });
    const dup = await t.http
      .post('/contacts')
      .set(s.headers)
      .send({ name: 'Second', identities: [identity] })
      .expect(409);
    expect(dup.body.code).toBe('conflict');
    const second = await create(s, { name: 'Second' });
    await t.http
      .put(`/contacts/${second.id}`)
      .set(s.headers)
      .send({ identities: [identity] })
      .expect(409);
    expect((await t.http.get(`/contacts/${second.id}`).set(s.headers).expect(200)).body.identities).toEqual([]);
    expect((await t.http.get(`/contacts/${first.id}`).set(s.headers).expect(200)).body.identities).toEqual([identity]);
    // The same identity in another workspace is another person.
    const other = await signupWorkspace(t);
    await create(other, { name: 'Elsewhere', identities: [identity] });
  });

  it('a tag filter pages newest first across pages, with the other filters; a tag nobody has is an empty page', async () => {
    const s = await signupWorkspace(t);
    const other = await signupWorkspace(t);
    await create(other, { name: 'Other gold', tags: ['gold'] });
    const pause = () => new Promise((resolve) => setTimeout(resolve, 3));
    const made: Record<string, unknown>[] = [];
    for (let i = 0; i < 9; i++) {
      const tags = i % 3 === 2 ? ['silver'] : ['gold', ...(i % 2 ? ['vip'] : [])];
      made.push(await create(s, { name: `Taggy ${i}`, email: `taggy${i}@shop.test`, tags }));
      await pause();
    }
    const walk = async (qs: string, limit: number): Promise<string[]> => {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 20; page++) {
        const res: { body: { data: { name: string }[]; nextCursor: string | null } } = await t.http
          .get(`/contacts?limit=${limit}&${qs}${cursor ? `&cursor=${cursor}` : ''}`)
          .set(s.headers)
          .expect(200);
        expect(res.body.data.length).toBeLessThanOrEqual(limit);
        seen.push(...res.body.data.map((c) => c.name));
        cursor = res.body.nextCursor;
        if (!cursor) return seen;
      }
      throw new Error('too many pages');
    };
    // Newest first: Taggy 7, 6, 4, 3, 1, 0 carry gold (2, 5, 8 are silver).
    expect(await walk('tag=GOLD', 2)).toEqual(['Taggy 7', 'Taggy 6', 'Taggy 4', 'Taggy 3', 'Taggy 1', 'Taggy 0']);
    expect(await walk('tag=vip', 1)).toEqual(['Taggy 7', 'Taggy 3', 'Taggy 1']);
    expect(await walk('tag=gold&search=taggy4', 5)).toEqual(['Taggy 4']);
    expect(await walk(`tag=gold&from=${encodeURIComponent(String(made[4]!.createdAt))}`, 2)).toEqual([
      'Taggy 7',
      'Taggy 6',
      'Taggy 4',
    ]);
    expect((await t.http.get('/contacts?tag=nobody-has-this').set(s.headers).expect(200)).body).toEqual({
      data: [],
      nextCursor: null,
    });
    // The other workspace's gold contact is not on A's pages, and A's are not on B's.
    expect(await walk('tag=gold', 100)).not.toContain('Other gold');
    const theirs = await t.http.get('/contacts?tag=gold').set(other.headers).expect(200);
    expect(theirs.body.data.map((c: { name: string }) => c.name)).toEqual(['Other gold']);
  });

  it('keeps workspaces apart: B cannot list, get, update, delete or annotate A’s contacts', async () => {
    const a = await signupWorkspace(t);
    const b = await signupWorkspace(t);
    const contact = await create(a, { name: 'Private', email: 'private@a.test', tags: ['secret'] });
    await t.http.post(`/contacts/${contact.id}/notes`).set(a.headers).send({ text: 'a note' }).expect(201);
    const list = await t.http.get('/contacts?search=private').set(b.headers).expect(200);
    expect(list.body).toEqual({ data: [], nextCursor: null });
    expect((await t.http.get('/contacts?tag=secret').set(b.headers).expect(200)).body.data).toEqual([]);
    await t.http.get(`/contacts/${contact.id}`).set(b.headers).expect(404);
    await t.http.put(`/contacts/${contact.id}`).set(b.headers).send({ name: 'hijack' }).expect(404);
    await t.http.delete(`/contacts/${contact.id}`).set(b.headers).expect(404);
    await t.http.post(`/contacts/${contact.id}/notes`).set(b.headers).send({ text: 'b note' }).expect(404);
    const bToken = await apiToken(t, b);
    await t.http.get(`/contacts/${contact.id}`).set(bToken.headers).expect(404);
    const still = await t.http.get(`/contacts/${contact.id}`).set(a.headers).expect(200);
    expect(still.body).toMatchObject({ name: 'Private', notes: [expect.objectContaining({ text: 'a note' })] });
    // A's company cannot be attached from B.
    const company = await t.http.post('/contacts/companies').set(a.headers).send({ name: 'A Corp' }).expect(201);
    await t.http.post('/contacts').set(b.headers).send({ name: 'x', companyId: company.body.id }).expect(404);
  });

  it('documents every contacts endpoint in the OpenAPI document', async () => {
    const doc = await t.http.get('/docs-json').expect(200);
    const paths: Record<string, Record<string, unknown>> = doc.body.paths;
    const methods = (path: string) => Object.keys(paths[path] ?? {}).sort();
    expect(methods('/contacts')).toEqual(['get', 'post']);
    expect(methods('/contacts/{id}')).toEqual(['delete', 'get', 'put']);
    expect(methods('/contacts/{id}/notes')).toEqual(['post']);
    expect(methods('/contacts/duplicates')).toEqual(['get']);
    expect(methods('/contacts/merge')).toEqual(['post']);
    expect(methods('/contacts/import')).toEqual(['post']);
    expect(methods('/contacts/companies')).toEqual(['get', 'post']);
    expect(methods('/contacts/fields')).toEqual(['get', 'post']);
    expect(methods('/contacts/fields/{id}')).toEqual(['delete', 'put']);
    expect(Object.keys(doc.body.components.schemas)).toEqual(
      expect.arrayContaining([
        'ContactResponse',
        'CreateContactDto',
        'ContactFieldResponse',
        'CompanyResponse',
        'ImportContactsResponse',
      ]),
    );
  });

  it('enforces permissions: agents view and manage but cannot import, merge or change fields', async () => {
    const admin = await signupWorkspace(t);
    const agent = await addMember(t, admin, 'AGENT');
    const contact = await create(agent, { name: 'By agent' });
    await t.http.get(`/contacts/${contact.id}`).set(agent.headers).expect(200);
    await t.http
      .post('/contacts/merge')
      .set(agent.headers)
      .send({ primaryId: contact.id, duplicateIds: [randomUUID()] })
      .expect(403);
    await t.http.post('/contacts/fields').set(agent.headers).send({ key: 'k', label: 'K', type: 'TEXT' }).expect(403);
    await t.http.get('/contacts/fields').set(agent.headers).expect(200);
    const imp = await t.http
      .post('/contacts/import')
      .set(agent.headers)
      .attach('file', Buffer.from('name\nx\n'), 'c.csv')
      .expect(403);
    expect(imp.body.code).toBe('forbidden');
    await t.http.get('/contacts').expect(401);
    await t.http.post('/contacts').send({ name: 'x' }).expect(401);
  });
});
