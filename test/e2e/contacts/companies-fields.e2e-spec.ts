import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { addMember, signupWorkspace } from '../../utils/sessions';

/** Rows created in one millisecond sort by id; a pause keeps the creation order the test expects. */
const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

describe('contacts: companies and custom fields', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT: '10000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('companies', () => {
    it('creates and lists companies newest first, lower-casing the domain, searching name and domain', async () => {
      const s = await signupWorkspace(t);
      const acme = await t.http
        .post('/contacts/companies')
        .set(s.headers)
        .send({ name: ' Acme ', domain: 'ACME.test' })
        .expect(201);
      expect(acme.body).toEqual({
        id: expect.any(String),
        name: 'Acme',
        domain: 'acme.test',
        createdAt: expect.any(String),
      });
      await pause();
      const globex = await t.http.post('/contacts/companies').set(s.headers).send({ name: 'Globex' }).expect(201);
      expect(globex.body.domain).toBeNull();
      await pause();
      await t.http.post('/contacts/companies').set(s.headers).send({ name: 'Initech', domain: null }).expect(201);
      const list = await t.http.get('/contacts/companies?limit=2').set(s.headers).expect(200);
      expect(list.body.data.map((c: { name: string }) => c.name)).toEqual(['Initech', 'Globex']);
      const next = await t.http
        .get(`/contacts/companies?limit=2&cursor=${list.body.nextCursor}`)
        .set(s.headers)
        .expect(200);
      expect(next.body).toEqual({ data: [acme.body], nextCursor: null });
      const found = await t.http.get('/contacts/companies?search=ACME.T').set(s.headers).expect(200);
      expect(found.body.data).toEqual([acme.body]);
    });

    it('refuses a domain used by another company of the workspace with 409, but not across workspaces', async () => {
      const s = await signupWorkspace(t);
      await t.http.post('/contacts/companies').set(s.headers).send({ name: 'One', domain: 'same.test' }).expect(201);
      const dup = await t.http
        .post('/contacts/companies')
        .set(s.headers)
        .send({ name: 'Two', domain: 'SAME.test' })
        .expect(409);
      expect(dup.body).toMatchObject({ statusCode: 409, code: 'conflict' });
      const other = await signupWorkspace(t);
      await t.http
        .post('/contacts/companies')
        .set(other.headers)
        .send({ name: 'Three', domain: 'same.test' })
        .expect(201);
    });

    it('validates company input', async () => {
      const s = await signupWorkspace(t);
      for (const [body, field] of [
        [{}, 'name'],
        [{ name: '' }, 'name'],
        [{ name: 7 }, 'name'],
        [{ name: 'x', domain: 'not a domain' }, 'domain'],
        [{ name: 'x', domain: 5 }, 'domain'],
        [{ name: 'x', website: 'y' }, 'website'],
      ] as const) {
        const res = await t.http.post('/contacts/companies').set(s.headers).send(body).expect(400);
        expect(res.body.code).toBe('validation_failed');
        expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      }
    });

    it('keeps companies per workspace', async () => {
      const a = await signupWorkspace(t);
      const b = await signupWorkspace(t);
      await t.http.post('/contacts/companies').set(a.headers).send({ name: 'Secret Co' }).expect(201);
      expect((await t.http.get('/contacts/companies').set(b.headers).expect(200)).body).toEqual({
        data: [],
        nextCursor: null,
      });
      expect((await t.http.get('/contacts/companies?search=secret').set(b.headers).expect(200)).body.data).toEqual([]);
    });

    it('needs contacts.manage to create and contacts.view to list', async () => {
      const admin = await signupWorkspace(t);
      const agent = await addMember(t, admin, 'AGENT');
      await t.http.post('/contacts/companies').set(agent.headers).send({ name: 'By agent' }).expect(201);
      await t.http.get('/contacts/companies').set(agent.headers).expect(200);
      await t.http
        .put('/permissions')
        .set(admin.headers)
        .send({ matrix: { AGENT: ['contacts.view'] } })
        .expect(200);
      const refused = await t.http.post('/contacts/companies').set(agent.headers).send({ name: 'Nope' }).expect(403);
      expect(refused.body.code).toBe('forbidden');
    });
  });

  describe('custom fields', () => {
    it('creates, lists in creation order, updates and deletes definitions', async () => {
      const s = await signupWorkspace(t);
      const plan = await t.http
        .post('/contacts/fields')
        .set(s.headers)
        .send({ key: 'plan', label: 'Plan', type: 'select', options: ['free', 'pro'], required: false })
        .expect(201);
      expect(plan.body).toEqual({
        id: expect.any(String),
        key: 'plan',
        label: 'Plan',
        type: 'SELECT',
        options: ['free', 'pro'],
        required: false,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      await pause();
      const seats = await t.http
        .post('/contacts/fields')
        .set(s.headers)
        .send({ key: 'seats', label: 'Seats', type: 'NUMBER' })
        .expect(201);
      expect(seats.body).toMatchObject({ options: [], required: false });
      const list = await t.http.get('/contacts/fields').set(s.headers).expect(200);
      expect(list.body).toEqual({ data: [plan.body, seats.body], nextCursor: null });
      const updated = await t.http
        .put(`/contacts/fields/${plan.body.id}`)
        .set(s.headers)
        .send({ label: 'Pricing plan', options: ['free', 'pro', 'enterprise'], required: true })
        .expect(200);
      expect(updated.body).toMatchObject({
        key: 'plan',
        type: 'SELECT',
        label: 'Pricing plan',
        options: ['free', 'pro', 'enterprise'],
        required: true,
      });
      await t.http.delete(`/contacts/fields/${seats.body.id}`).set(s.headers).expect(204);
      await t.http.delete(`/contacts/fields/${seats.body.id}`).set(s.headers).expect(404);
      expect(
        (await t.http.get('/contacts/fields').set(s.headers).expect(200)).body.data.map((f: { key: string }) => f.key),
      ).toEqual(['plan']);
    });

    it('refuses bad definitions: keys not snake_case, unknown types, options where they do not belong; key and type are fixed', async () => {
      const s = await signupWorkspace(t);
      const cases: [Record<string, unknown>, string][] = [
        [{ key: 'LifetimeValue', label: 'x', type: 'TEXT' }, 'key'],
        [{ key: 'lifetime-value', label: 'x', type: 'TEXT' }, 'key'],
        [{ key: '_x', label: 'x', type: 'TEXT' }, 'key'],
        [{ key: 'ok', label: '', type: 'TEXT' }, 'label'],
        [{ key: 'ok', label: 'x', type: 'COLOR' }, 'type'],
        [{ key: 'ok', label: 'x', type: 'SELECT' }, 'options'],
        [{ key: 'ok', label: 'x', type: 'SELECT', options: [] }, 'options'],
        [{ key: 'ok', label: 'x', type: 'SELECT', options: ['a', 'a'] }, 'options'],
        [{ key: 'ok', label: 'x', type: 'TEXT', options: ['a'] }, 'options'],
        [{ key: 'ok', label: 'x', type: 'TEXT', required: 'yes' }, 'required'],
        [{ key: 'ok', label: 'x', type: 'TEXT', hint: 'y' }, 'hint'],
      ];
      for (const [body, field] of cases) {
        const res = await t.http.post('/contacts/fields').set(s.headers).send(body);
        expect({ body, status: res.status }).toEqual({ body, status: 400 });
        expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      }
      const text = await t.http
        .post('/contacts/fields')
        .set(s.headers)
        .send({ key: 'notes', label: 'Notes', type: 'TEXT' })
        .expect(201);
      await t.http.put(`/contacts/fields/${text.body.id}`).set(s.headers).send({ key: 'other' }).expect(400);
      await t.http.put(`/contacts/fields/${text.body.id}`).set(s.headers).send({ type: 'NUMBER' }).expect(400);
      await t.http
        .put(`/contacts/fields/${text.body.id}`)
        .set(s.headers)
        .send({ options: ['a'] })
        .expect(400);
      await t.http.put(`/contacts/fields/${text.body.id}`).set(s.headers).send({ label: null }).expect(400);
      const dup = await t.http
        .post('/contacts/fields')
        .set(s.headers)
        .send({ key: 'notes', label: 'Again', type: 'NUMBER' })
        .expect(409);
      expect(dup.body.code).toBe('conflict');
      for (const path of ['/contacts/fields/abc', `/contacts/fields/${randomUUID()}`]) {
        await t.http.put(path).set(s.headers).send({ label: 'x' }).expect(404);
        await t.http.delete(path).set(s.headers).expect(404);
      }
    });

    it('validates contact values against the definitions, naming the field', async () => {
      const s = await signupWorkspace(t);
      const define = (body: Record<string, unknown>) =>
        t.http.post('/contacts/fields').set(s.headers).send(body).expect(201);
      await define({ key: 'plan', label: 'Plan', type: 'SELECT', options: ['free', 'pro'], required: true });
      await define({ key: 'seats', label: 'Seats', type: 'NUMBER' });
      await define({ key: 'renewal', label: 'Renewal', type: 'DATE' });
      await define({ key: 'active', label: 'Active', type: 'BOOLEAN' });
      await define({ key: 'notes', label: 'Notes', type: 'TEXT' });

      const bad: [Record<string, unknown>, string, string][] = [
        [{ plan: 'pro', shoe_size: 42 }, 'customFields.shoe_size', 'is not a defined custom field'],
        [{ plan: 'pro', seats: 'three' }, 'customFields.seats', 'must be a number'],
        [{ plan: 'pro', renewal: '2027-13-01' }, 'customFields.renewal', 'must be a date written YYYY-MM-DD'],
        [{ plan: 'pro', active: 'yes' }, 'customFields.active', 'must be true or false'],
        [{ plan: 'pro', notes: 12 }, 'customFields.notes', 'must be a string'],
        [{ plan: 'platinum' }, 'customFields.plan', 'must be one of: free, pro'],
        [{ seats: 3 }, 'customFields.plan', 'is required'],
      ];
      for (const [customFields, field, message] of bad) {
        const res = await t.http.post('/contacts').set(s.headers).send({ name: 'x', customFields }).expect(400);
        expect(res.body).toMatchObject({ code: 'validation_failed', message: `${field} ${message}` });
        expect(res.body.details).toContainEqual({ field, message });
      }
      expect((await t.http.get('/contacts').set(s.headers).expect(200)).body.data).toEqual([]);

      const ok = await t.http
        .post('/contacts')
        .set(s.headers)
        .send({
          name: 'Typed',
          customFields: { plan: 'pro', seats: 3, renewal: '2027-01-31', active: true, notes: 'hi' },
        })
        .expect(201);
      expect(ok.body.customFields).toEqual({ plan: 'pro', seats: 3, renewal: '2027-01-31', active: true, notes: 'hi' });
      // Update merges key by key; null removes; a required field cannot be removed.
      const merged = await t.http
        .put(`/contacts/${ok.body.id}`)
        .set(s.headers)
        .send({ customFields: { seats: 5, notes: null } })
        .expect(200);
      expect(merged.body.customFields).toEqual({ plan: 'pro', seats: 5, renewal: '2027-01-31', active: true });
      const clear = await t.http
        .put(`/contacts/${ok.body.id}`)
        .set(s.headers)
        .send({ customFields: { plan: null } })
        .expect(400);
      expect(clear.body.details).toEqual([
        { field: 'customFields.plan', message: 'is required and cannot be removed' },
      ]);
      await t.http
        .put(`/contacts/${ok.body.id}`)
        .set(s.headers)
        .send({ customFields: { seats: '5' } })
        .expect(400);
      // Updating other fields does not demand required values the contact lacks.
      await t.http.put(`/contacts/${ok.body.id}`).set(s.headers).send({ name: 'Renamed' }).expect(200);
    });

    it('deleting a definition removes its values from every contact', async () => {
      const s = await signupWorkspace(t);
      const color = await t.http
        .post('/contacts/fields')
        .set(s.headers)
        .send({ key: 'color', label: 'Colour', type: 'TEXT' })
        .expect(201);
      await t.http
        .post('/contacts/fields')
        .set(s.headers)
        .send({ key: 'size', label: 'Size', type: 'NUMBER' })
        .expect(201);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const c = await t.http
          .post('/contacts')
          .set(s.headers)
          .send({ name: `C${i}`, customFields: { color: 'red', size: i } })
          .expect(201);
        ids.push(c.body.id);
      }
      await t.http.delete(`/contacts/fields/${color.body.id}`).set(s.headers).expect(204);
      for (const [i, id] of ids.entries()) {
        expect((await t.http.get(`/contacts/${id}`).set(s.headers).expect(200)).body.customFields).toEqual({ size: i });
      }
      // The key is free again, and the old value does not come back.
      await t.http
        .post('/contacts/fields')
        .set(s.headers)
        .send({ key: 'color', label: 'Colour', type: 'TEXT' })
        .expect(201);
      expect((await t.http.get(`/contacts/${ids[0]}`).set(s.headers).expect(200)).body.customFields).toEqual({
        size: 0,
      });
    });

    it('keeps definitions per workspace: B cannot see, use, update or delete A’s fields', async () => {
      const a = await signupWorkspace(t);
      const b = await signupWorkspace(t);
      const field = await t.http
        .post('/contacts/fields')
        .set(a.headers)
        .send({ key: 'tier', label: 'Tier', type: 'TEXT' })
        .expect(201);
      expect((await t.http.get('/contacts/fields').set(b.headers).expect(200)).body.data).toEqual([]);
      await t.http.put(`/contacts/fields/${field.body.id}`).set(b.headers).send({ label: 'Hijack' }).expect(404);
      await t.http.delete(`/contacts/fields/${field.body.id}`).set(b.headers).expect(404);
      const unknown = await t.http
        .post('/contacts')
        .set(b.headers)
        .send({ name: 'x', customFields: { tier: 'gold' } })
        .expect(400);
      expect(unknown.body.details).toEqual([{ field: 'customFields.tier', message: 'is not a defined custom field' }]);
      expect((await t.http.get('/contacts/fields').set(a.headers).expect(200)).body.data).toEqual([field.body]);
      // Same key in B is independent.
      await t.http
        .post('/contacts/fields')
        .set(b.headers)
        .send({ key: 'tier', label: 'Tier', type: 'NUMBER' })
        .expect(201);
    });

    it('needs contacts.fields to change definitions', async () => {
      const admin = await signupWorkspace(t);
      const supervisor = await addMember(t, admin, 'SUPERVISOR');
      const agent = await addMember(t, admin, 'AGENT');
      const field = await t.http
        .post('/contacts/fields')
        .set(supervisor.headers)
        .send({ key: 'k', label: 'K', type: 'TEXT' })
        .expect(201);
      await t.http.put(`/contacts/fields/${field.body.id}`).set(agent.headers).send({ label: 'x' }).expect(403);
      await t.http.delete(`/contacts/fields/${field.body.id}`).set(agent.headers).expect(403);
    });
  });
});
