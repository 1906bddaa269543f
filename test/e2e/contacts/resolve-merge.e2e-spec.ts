import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { type DomainEvent, EventBus } from 'src/core/events/event-bus';
import { MissingTenantContextError, runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { ContactMergeHooks, ContactsService } from 'src/modules/contacts';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';

const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

describe('contacts: resolveByIdentity, duplicates and merge', () => {
  let t: TestApp;
  let contacts: ContactsService;
  const events: DomainEvent[] = [];
  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT: '10000' } });
    contacts = t.app.get(ContactsService);
    t.app.get(EventBus).subscribe('*', (e) => {
      events.push(e);
    });
  });
  afterAll(async () => {
    await t.close();
  });

  async function create(s: Session, body: Record<string, unknown>): Promise<Record<string, unknown> & { id: string }> {
    const res = await t.http.post('/contacts').set(s.headers).send(body).expect(201);
    await pause();
    return res.body;
  }

  async function countContacts(workspaceId: string): Promise<number> {
    const rows: { n: number }[] = await t.app
      .get(DataSource)
      .query('SELECT count(*)::int AS n FROM contacts WHERE workspace_id = $1', [workspaceId]);
    return rows[0]!.n;
  }

  describe('resolveByIdentity', () => {
    it('creates a contact from the profile once, then finds it (profile ignored), publishing contact.created once', async () => {
      const s = await signupWorkspace(t);
      const identity = { channelType: 'custom', channelId: randomUUID(), externalId: 'sender-1' };
      const first = await runAsWorkspace(s.workspaceId, () =>
        contacts.resolveByIdentity(identity, {
          name: '  Jane Doe ',
          avatarUrl: 'https://cdn.example.com/jane.jpg',
          email: 'JANE@Example.com',
          phone: '+1 555 0100',
        }),
      );
      expect(first.created).toBe(true);
      expect(first.contact).toMatchObject({
        name: 'Jane Doe',
        email: 'jane@example.com',
        phone: '+1 555 0100',
        avatarUrl: 'https://cdn.example.com/jane.jpg',
        company: null,
        customFields: {},
        tags: [],
        identities: [{ channelType: 'CUSTOM', channelId: identity.channelId, externalId: 'sender-1' }],
      });
      const again = await runAsWorkspace(s.workspaceId, () =>
        contacts.resolveByIdentity(identity, { name: 'Someone else' }),
      );
      expect(again).toEqual({ contact: first.contact, created: false });
      const created = events.filter((e) => e.name === 'contact.created' && e.workspaceId === s.workspaceId);
      expect(created).toEqual([expect.objectContaining({ data: { contact: first.contact } })]);
      const api = await t.http.get(`/contacts/${first.contact.id}`).set(s.headers).expect(200);
      expect(api.body).toEqual({ ...first.contact, notes: [] });
      // The phone is matchable by its digits.
      expect((await t.http.get('/contacts?phone=15550100').set(s.headers).expect(200)).body.data).toHaveLength(1);
    });

    it('creates exactly one contact when ten messages from one new person arrive at once', async () => {
      const s = await signupWorkspace(t);
      // Open the pool's connections first, so the ten calls really run side by side (on PostgreSQL they race
      // on the unique identity index; the embedded engine serialises them).
      await Promise.all(Array.from({ length: 10 }, () => t.app.get(DataSource).query('SELECT pg_sleep(0.02)')));
      for (let round = 0; round < 3; round++) {
        const identity = { channelType: 'WHATSAPP', channelId: randomUUID(), externalId: '+15550199' };
        const results = await runAsWorkspace(s.workspaceId, () =>
          Promise.all(
            Array.from({ length: 10 }, (_, i) => contacts.resolveByIdentity(identity, { name: `Caller ${i}` })),
          ),
        );
        expect(new Set(results.map((r) => r.contact.id)).size).toBe(1);
        expect(results.filter((r) => r.created)).toHaveLength(1);
        expect(results.every((r) => r.contact.identities.length === 1)).toBe(true);
      }
      expect(await countContacts(s.workspaceId)).toBe(3);
      const identities: { n: number }[] = await t.app
        .get(DataSource)
        .query('SELECT count(*)::int AS n FROM contact_identities WHERE workspace_id = $1', [s.workspaceId]);
      expect(identities[0]!.n).toBe(3);
      expect(events.filter((e) => e.name === 'contact.created' && e.workspaceId === s.workspaceId)).toHaveLength(3);
    });

    it('keeps different people, channels and workspaces apart, also concurrently', async () => {
      const a = await signupWorkspace(t);
      const b = await signupWorkspace(t);
      const channelId = randomUUID();
      const results = await runAsWorkspace(a.workspaceId, () =>
        Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            contacts.resolveByIdentity(
              { channelType: 'TELEGRAM', channelId, externalId: `user-${i % 5}` },
              { name: `U${i % 5}` },
            ),
          ),
        ),
      );
      expect(new Set(results.map((r) => r.contact.id)).size).toBe(5);
      expect(results.filter((r) => r.created)).toHaveLength(5);
      const otherChannel = await runAsWorkspace(a.workspaceId, () =>
        contacts.resolveByIdentity({ channelType: 'TELEGRAM', channelId: randomUUID(), externalId: 'user-0' }, {}),
      );
      expect(otherChannel.created).toBe(true);
      const inB = await runAsWorkspace(b.workspaceId, () =>
        contacts.resolveByIdentity({ channelType: 'TELEGRAM', channelId, externalId: 'user-0' }, {}),
      );
      expect(inB.created).toBe(true);
      expect(results.map((r) => r.contact.id)).not.toContain(inB.contact.id);
      expect(await countContacts(a.workspaceId)).toBe(6);
      expect(await countContacts(b.workspaceId)).toBe(1);
      await t.http.get(`/contacts/${inB.contact.id}`).set(a.headers).expect(404);
    });

    it('drops an invalid email, phone or avatar from a platform profile instead of failing', async () => {
      const s = await signupWorkspace(t);
      const { contact } = await runAsWorkspace(s.workspaceId, () =>
        contacts.resolveByIdentity(
          { channelType: 'LINE', channelId: 'dest-1', externalId: 'U1' },
          { name: '', email: 'nope', phone: 'private', avatarUrl: 'javascript:alert(1)' },
        ),
      );
      expect(contact).toMatchObject({ name: null, email: null, phone: null, avatarUrl: null });
    });

    it('fails closed outside a tenant context', async () => {
      await expect(
        contacts.resolveByIdentity({ channelType: 'LINE', channelId: 'x', externalId: 'y' }, {}),
      ).rejects.toBeInstanceOf(MissingTenantContextError);
    });

    it("joins the caller's transaction: a rollback leaves no contact and publishes nothing", async () => {
      const s = await signupWorkspace(t);
      const tx = t.app.get(TransactionHost);
      await expect(
        runAsWorkspace(s.workspaceId, () =>
          tx.run(async () => {
            const r = await contacts.resolveByIdentity(
              { channelType: 'CUSTOM', channelId: 'c', externalId: 'rolled-back' },
              { name: 'Ghost' },
            );
            expect(r.created).toBe(true);
            throw new Error('pipeline failed later');
          }),
        ),
      ).rejects.toThrow('pipeline failed later');
      expect(await countContacts(s.workspaceId)).toBe(0);
      expect(events.filter((e) => e.workspaceId === s.workspaceId)).toEqual([]);
    });
  });

  describe('duplicates', () => {
    it('groups contacts sharing an email (any case), a phone (by digits) or an exact name, computed per workspace', async () => {
      const s = await signupWorkspace(t);
      const e1 = await create(s, { name: 'Ann', email: 'ann@example.com' });
      const e2 = await create(s, { name: 'Annie', email: 'ANN@example.com' });
      const p1 = await create(s, { name: 'Phil', phone: '+1 (555) 010-0100' });
      const p2 = await create(s, { name: 'Phillip', phone: '1-555-010-0100' });
      const n1 = await create(s, { name: 'Sam Smith' });
      const n2 = await create(s, { name: 'Sam Smith', email: 'sam@example.com' });
      await create(s, { name: 'sam smith' });
      await create(s, { name: 'Unique', email: 'unique@example.com', phone: '555 0999' });
      const res = await t.http.get('/contacts/duplicates').set(s.headers).expect(200);
      const ids = (cs: { id: string }[]) => cs.map((c) => c.id);
      expect(res.body.nextCursor).toBeNull();
      expect(
        res.body.data.map((g: { reason: string; value: string; count: number }) => [g.reason, g.value, g.count]),
      ).toEqual([
        ['EMAIL', 'ann@example.com', 2],
        ['PHONE', '15550100100', 2],
        ['NAME', 'Sam Smith', 2],
      ]);
      expect(ids(res.body.data[0].contacts)).toEqual([e1.id, e2.id]);
      expect(ids(res.body.data[1].contacts)).toEqual([p1.id, p2.id]);
      expect(ids(res.body.data[2].contacts)).toEqual([n1.id, n2.id]);
      expect(res.body.data[2].contacts[1]).toMatchObject({ email: 'sam@example.com', identities: [], company: null });

      const page1 = await t.http.get('/contacts/duplicates?limit=2').set(s.headers).expect(200);
      expect(page1.body.data.map((g: { reason: string }) => g.reason)).toEqual(['EMAIL', 'PHONE']);
      const page2 = await t.http
        .get(`/contacts/duplicates?limit=2&cursor=${page1.body.nextCursor}`)
        .set(s.headers)
        .expect(200);
      expect(page2.body).toEqual({ data: [res.body.data[2]], nextCursor: null });

      const other = await signupWorkspace(t);
      await create(other, { name: 'Ann', email: 'ann@example.com' });
      expect((await t.http.get('/contacts/duplicates').set(other.headers).expect(200)).body).toEqual({
        data: [],
        nextCursor: null,
      });
      await t.http.get('/contacts/duplicates?limit=500').set(s.headers).expect(400);
    });
  });

  describe('merge', () => {
    it('moves identities and notes, fills empty fields, unites custom fields and tags, removes the duplicates, in one transaction with the hooks', async () => {
      const s = await signupWorkspace(t);
      await t.http
        .post('/contacts/fields')
        .set(s.headers)
        .send({ key: 'plan', label: 'Plan', type: 'TEXT' })
        .expect(201);
      await t.http
        .post('/contacts/fields')
        .set(s.headers)
        .send({ key: 'seats', label: 'Seats', type: 'NUMBER' })
        .expect(201);
      const acme = await t.http.post('/contacts/companies').set(s.headers).send({ name: 'Acme' }).expect(201);
      const primary = await create(s, {
        name: 'Primary Person',
        tags: ['vip'],
        customFields: { plan: 'pro' },
        identities: [{ channelType: 'LINE', channelId: 'l1', externalId: 'p' }],
      });
      const dup1 = await create(s, {
        name: 'Dup One',
        email: 'person@example.com',
        phone: '+1 555 0100',
        tags: ['lead', 'VIP'],
        customFields: { plan: 'free', seats: 3 },
        identities: [{ channelType: 'TELEGRAM', channelId: 't1', externalId: '77' }],
      });
      const dup2 = await create(s, {
        email: 'other@example.com',
        avatarUrl: 'https://img.test/a.png',
        companyId: acme.body.id,
        tags: ['churn-risk'],
        customFields: { seats: 10 },
      });
      await t.http.post(`/contacts/${dup1.id}/notes`).set(s.headers).send({ text: 'note on dup1' }).expect(201);
      await t.http.post(`/contacts/${dup2.id}/notes`).set(s.headers).send({ text: 'note on dup2' }).expect(201);

      const hooks = t.app.get(ContactMergeHooks);
      const tx = t.app.get(TransactionHost);
      const calls: {
        primaryId: string;
        duplicateIds: readonly string[];
        inTransaction: boolean;
        duplicatesStillThere: number;
      }[] = [];
      hooks.register('test-recorder', async (primaryId, duplicateIds) => {
        const rows: { n: number }[] = await tx.manager.query(
          'SELECT count(*)::int AS n FROM contacts WHERE id = ANY($1::uuid[])',
          [duplicateIds],
        );
        calls.push({ primaryId, duplicateIds, inTransaction: tx.inTransaction, duplicatesStillThere: rows[0]!.n });
      });
      try {
        const merged = await t.http
          .post('/contacts/merge')
          .set(s.headers)
          .send({ primaryId: primary.id, duplicateIds: [dup1.id, dup2.id] })
          .expect(200);
        expect(merged.body).toMatchObject({
          id: primary.id,
          name: 'Primary Person',
          email: 'person@example.com',
          phone: '+1 555 0100',
          avatarUrl: 'https://img.test/a.png',
          companyId: acme.body.id,
          company: { id: acme.body.id, name: 'Acme' },
          customFields: { plan: 'pro', seats: 3 },
          tags: ['vip', 'lead', 'churn-risk'],
        });
        expect(merged.body.identities).toEqual([
          { channelType: 'LINE', channelId: 'l1', externalId: 'p' },
          { channelType: 'TELEGRAM', channelId: 't1', externalId: '77' },
        ]);
        expect(calls).toEqual([
          { primaryId: primary.id, duplicateIds: [dup1.id, dup2.id], inTransaction: true, duplicatesStillThere: 2 },
        ]);
        for (const id of [dup1.id, dup2.id]) await t.http.get(`/contacts/${id}`).set(s.headers).expect(404);
        const detail = await t.http.get(`/contacts/${primary.id}`).set(s.headers).expect(200);
        expect(detail.body.notes.map((n: { text: string }) => n.text).sort()).toEqual(['note on dup1', 'note on dup2']);
        // The inbound pipeline now resolves the duplicate's identity to the primary.
        const resolved = await runAsWorkspace(s.workspaceId, () =>
          contacts.resolveByIdentity({ channelType: 'TELEGRAM', channelId: 't1', externalId: '77' }, {}),
        );
        expect(resolved).toMatchObject({ created: false, contact: { id: primary.id } });
        expect(events).toContainEqual(
          expect.objectContaining({
            name: 'contact.updated',
            data: { contact: merged.body, mergedContactIds: [dup1.id, dup2.id] },
          }),
        );
        expect(await countContacts(s.workspaceId)).toBe(1);
      } finally {
        hooks.unregister('test-recorder');
      }
    });

    it('rolls everything back when a hook fails', async () => {
      const s = await signupWorkspace(t);
      const primary = await create(s, { name: 'Keep' });
      const dup = await create(s, {
        name: 'Dup',
        email: 'dup@example.com',
        identities: [{ channelType: 'LINE', channelId: 'c', externalId: 'd' }],
      });
      await t.http.post(`/contacts/${dup.id}/notes`).set(s.headers).send({ text: 'stays' }).expect(201);
      const hooks = t.app.get(ContactMergeHooks);
      hooks.register('test-failing', async () => {
        throw AppException.conflict('tickets cannot move right now');
      });
      try {
        const res = await t.http
          .post('/contacts/merge')
          .set(s.headers)
          .send({ primaryId: primary.id, duplicateIds: [dup.id] })
          .expect(409);
        expect(res.body.message).toBe('tickets cannot move right now');
      } finally {
        hooks.unregister('test-failing');
      }
      const still = await t.http.get(`/contacts/${dup.id}`).set(s.headers).expect(200);
      expect(still.body).toMatchObject({
        email: 'dup@example.com',
        identities: [{ channelType: 'LINE', channelId: 'c', externalId: 'd' }],
      });
      expect(still.body.notes).toHaveLength(1);
      expect((await t.http.get(`/contacts/${primary.id}`).set(s.headers).expect(200)).body).toMatchObject({
        email: null,
        identities: [],
        notes: [],
      });
    });

    it('answers 404 for unknown, non-UUID or foreign ids and 400 when the primary is among the duplicates', async () => {
      const a = await signupWorkspace(t);
      const b = await signupWorkspace(t);
      const a1 = await create(a, { name: 'A1' });
      const a2 = await create(a, { name: 'A2' });
      const b1 = await create(b, { name: 'B1' });
      const merge = (s: Session, body: unknown) =>
        t.http
          .post('/contacts/merge')
          .set(s.headers)
          .send(body as object);

      const self = await merge(a, { primaryId: a1.id, duplicateIds: [a2.id, a1.id] }).expect(400);
      expect(self.body).toMatchObject({
        code: 'validation_failed',
        details: [{ field: 'duplicateIds', message: 'must not contain the primary contact' }],
      });
      expect((await merge(a, { primaryId: a1.id, duplicateIds: [randomUUID()] }).expect(404)).body.code).toBe(
        'not_found',
      );
      await merge(a, { primaryId: randomUUID(), duplicateIds: [a2.id] }).expect(404);
      await merge(a, { primaryId: 'nope', duplicateIds: [a2.id] }).expect(404);
      await merge(a, { primaryId: a1.id, duplicateIds: ['nope'] }).expect(404);
      await merge(a, { primaryId: a1.id, duplicateIds: [b1.id] }).expect(404);
      // From B, A's ids do not exist.
      await merge(b, { primaryId: a1.id, duplicateIds: [a2.id] }).expect(404);
      await merge(b, { primaryId: b1.id, duplicateIds: [a1.id] }).expect(404);
      for (const body of [
        { primaryId: a1.id },
        { primaryId: a1.id, duplicateIds: [] },
        { primaryId: a1.id, duplicateIds: a2.id },
        { primaryId: 5, duplicateIds: [a2.id] },
        { primaryId: a1.id, duplicateIds: [a2.id, a2.id] },
        { primaryId: a1.id, duplicateIds: [a2.id], force: true },
      ]) {
        const res = await merge(a, body).expect(400);
        expect(res.body.code).toBe('validation_failed');
      }
      for (const c of [a1, a2]) await t.http.get(`/contacts/${c.id}`).set(a.headers).expect(200);
      await t.http.get(`/contacts/${b1.id}`).set(b.headers).expect(200);
    });
  });
});
