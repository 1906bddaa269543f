import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, addMember, apiToken, signupWorkspace } from '../../utils/sessions';

type Policy = Record<string, unknown> & { id: string };

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('SLA policies: CRUD, order, validation, permissions, isolation, ticket due times', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT: '10000' } });
  });
  afterAll(async () => {
    await t.close();
  });

  async function create(s: { headers: Record<string, string> }, body: Record<string, unknown>): Promise<Policy> {
    const res = await t.http
      .post('/sla/policies')
      .set(s.headers)
      .send({ firstResponseMinutes: 15, resolutionMinutes: 240, ...body })
      .expect(201);
    return res.body;
  }

  async function names(s: Session): Promise<string[]> {
    const res = await t.http.get('/sla/policies').set(s.headers).expect(200);
    expect(res.body.nextCursor).toBeNull();
    return res.body.data.map((p: Policy) => p.name);
  }

  it('creates, lists in matching order, updates only what is sent and deletes', async () => {
    const admin = await signupWorkspace(t);
    const queues = await t.http.get('/queues').set(admin.headers).expect(200);
    const queueId: string = queues.body.data[0].id;
    const urgent = await create(admin, {
      name: '  Urgent chats ',
      conditions: { priorities: ['urgent', 'HIGH'], channelTypes: ['whatsapp'], queueIds: [queueId.toUpperCase()] },
      firstResponseMinutes: 5,
      resolutionMinutes: 60,
    });
    expect(urgent).toEqual({
      id: expect.any(String),
      name: 'Urgent chats',
      active: true,
      order: 0,
      conditions: { priorities: ['URGENT', 'HIGH'], channelTypes: ['WHATSAPP'], queueIds: [queueId] },
      firstResponseMinutes: 5,
      resolutionMinutes: 60,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const standard = await create(admin, { name: 'Standard' });
    expect(standard).toMatchObject({
      order: 1,
      active: true,
      conditions: { priorities: [], channelTypes: [], queueIds: [] },
    });
    const first = await create(admin, { name: 'First', order: 0, active: false });
    expect(await names(admin)).toEqual(['Urgent chats', 'First', 'Standard']);

    const moved = await t.http
      .put(`/sla/policies/${standard.id}`)
      .set(admin.headers)
      .send({ order: 0, conditions: { priorities: ['low'] } })
      .expect(200);
    expect(moved.body).toMatchObject({
      name: 'Standard',
      order: 0,
      conditions: { priorities: ['LOW'], channelTypes: [], queueIds: [] },
      firstResponseMinutes: 15,
      resolutionMinutes: 240,
    });
    const renamed = await t.http
      .put(`/sla/policies/${urgent.id}`)
      .set(admin.headers)
      .send({ name: 'Renamed', active: false, firstResponseMinutes: 10, conditions: { channelTypes: [] } })
      .expect(200);
    expect(renamed.body).toMatchObject({
      name: 'Renamed',
      active: false,
      order: 0,
      firstResponseMinutes: 10,
      resolutionMinutes: 60,
      conditions: { priorities: ['URGENT', 'HIGH'], channelTypes: [], queueIds: [queueId] },
    });
    // Same order: the older policy first.
    expect(await names(admin)).toEqual(['Renamed', 'Standard', 'First']);

    await t.http.delete(`/sla/policies/${first.id}`).set(admin.headers).expect(204);
    await t.http.delete(`/sla/policies/${first.id}`).set(admin.headers).expect(404);
    await t.http.put(`/sla/policies/${first.id}`).set(admin.headers).send({ name: 'Gone' }).expect(404);
    expect(await names(admin)).toEqual(['Renamed', 'Standard']);
  });

  it('validates bodies: unknown fields, enums, ids and minutes; non-UUID ids are 404', async () => {
    const admin = await signupWorkspace(t);
    const bad: Record<string, unknown>[] = [
      { name: 'x', firstResponseMinutes: 15 },
      { name: 'x', resolutionMinutes: 15 },
      { firstResponseMinutes: 15, resolutionMinutes: 60 },
      { name: '', firstResponseMinutes: 15, resolutionMinutes: 60 },
      { name: 'x', firstResponseMinutes: 0, resolutionMinutes: 60 },
      { name: 'x', firstResponseMinutes: 1.5, resolutionMinutes: 60 },
      { name: 'x', firstResponseMinutes: '15', resolutionMinutes: 60 },
      { name: 'x', firstResponseMinutes: 15, resolutionMinutes: 525_601 },
      { name: 'x', firstResponseMinutes: 15, resolutionMinutes: 60, order: -1 },
      { name: 'x', firstResponseMinutes: 15, resolutionMinutes: 60, active: 'yes' },
      { name: 'x', firstResponseMinutes: 15, resolutionMinutes: 60, conditions: { priorities: ['P1'] } },
      { name: 'x', firstResponseMinutes: 15, resolutionMinutes: 60, conditions: { channelTypes: ['EMAIL'] } },
      { name: 'x', firstResponseMinutes: 15, resolutionMinutes: 60, conditions: { queueIds: ['q1'] } },
      { name: 'x', firstResponseMinutes: 15, resolutionMinutes: 60, conditions: { priorities: 'HIGH' } },
      { name: 'x', firstResponseMinutes: 15, resolutionMinutes: 60, conditions: { priorities: ['HIGH', 'high'] } },
      { name: 'x', firstResponseMinutes: 15, resolutionMinutes: 60, conditions: { tags: [] } },
      { name: 'x', firstResponseMinutes: 15, resolutionMinutes: 60, conditions: [] },
      { name: 'x', firstResponseMinutes: 15, resolutionMinutes: 60, businessHours: true },
    ];
    for (const body of bad) {
      const res = await t.http.post('/sla/policies').set(admin.headers).send(body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 400,
        code: 'validation_failed',
      });
    }
    const policy = await create(admin, { name: 'Valid' });
    for (const body of [{ name: null }, { active: null }, { resolutionMinutes: 0 }, { id: randomUUID() }]) {
      await t.http.put(`/sla/policies/${policy.id}`).set(admin.headers).send(body).expect(400);
    }
    for (const id of ['nope', '42', randomUUID()]) {
      await t.http.put(`/sla/policies/${id}`).set(admin.headers).send({ name: 'x' }).expect(404);
      await t.http.delete(`/sla/policies/${id}`).set(admin.headers).expect(404);
    }
    await t.http.get('/sla/summary?from=yesterday').set(admin.headers).expect(400);
    await t.http.get('/sla/summary?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z').set(admin.headers).expect(400);
    await t.http.get('/sla/summary?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z').set(admin.headers).expect(400);
    await t.http.get('/sla/summary?policyId=x').set(admin.headers).expect(400);
    expect(await names(admin)).toEqual(['Valid']);
  });

  it('allows at most 100 policies per workspace', async () => {
    const admin = await signupWorkspace(t);
    const token = await apiToken(t, admin);
    for (let i = 0; i < 100; i++) await create(token, { name: `P${i}` });
    const refused = await t.http
      .post('/sla/policies')
      .set(token.headers)
      .send({ name: 'One too many', firstResponseMinutes: 1, resolutionMinutes: 1 })
      .expect(409);
    expect(refused.body.code).toBe('conflict');
  });

  it('needs sla.manage for policies and analytics.view for the summary: agents are refused, supervisors allowed', async () => {
    const admin = await signupWorkspace(t);
    const agent = await addMember(t, admin, 'AGENT');
    const supervisor = await addMember(t, admin, 'SUPERVISOR');
    const policy = await create(supervisor, { name: 'By a supervisor' });
    await t.http.get('/sla/policies').set(supervisor.headers).expect(200);
    await t.http.get('/sla/summary').set(supervisor.headers).expect(200);
    for (const [method, path] of [
      ['get', '/sla/policies'],
      ['post', '/sla/policies'],
      ['put', `/sla/policies/${policy.id}`],
      ['delete', `/sla/policies/${policy.id}`],
      ['get', '/sla/summary'],
    ] as const) {
      const res = await t.http[method](path).set(agent.headers).send({});
      expect({ path, method, status: res.status, code: res.body.code }).toEqual({
        path,
        method,
        status: 403,
        code: 'forbidden',
      });
    }
    await t.http.get('/sla/policies').expect(401);
  });

  it('isolates workspaces: another workspace’s policies are invisible and never applied', async () => {
    const a = await signupWorkspace(t, 'A');
    const b = await signupWorkspace(t, 'B');
    const policy = await create(a, { name: 'Only A', conditions: { priorities: ['URGENT'] }, resolutionMinutes: 30 });
    expect(await names(b)).toEqual([]);
    await t.http.put(`/sla/policies/${policy.id}`).set(b.headers).send({ name: 'Taken' }).expect(404);
    await t.http.delete(`/sla/policies/${policy.id}`).set(b.headers).expect(404);
    const ticketB = await t.http.post('/tickets').set(b.headers).send({ subject: 'B', priority: 'URGENT' }).expect(201);
    expect(ticketB.body.dueAt).toBeNull();
    const ticketA = await t.http.post('/tickets').set(a.headers).send({ subject: 'A', priority: 'URGENT' }).expect(201);
    expect(Date.parse(ticketA.body.dueAt) - Date.parse(ticketA.body.createdAt)).toBe(30 * 60_000);
    expect(await names(a)).toEqual(['Only A']);
  });

  it('gives tickets the resolution target of the first active matching policy', async () => {
    const admin = await signupWorkspace(t);
    const queueId: string = (await t.http.get('/queues').set(admin.headers).expect(200)).body.data[0].id;
    const dueMinutes = (ticket: Record<string, string>) =>
      ticket.dueAt === null ? null : (Date.parse(ticket.dueAt) - Date.parse(ticket.createdAt)) / 60_000;
    const ticket = async (body: Record<string, unknown>) =>
      (
        await t.http
          .post('/tickets')
          .set(admin.headers)
          .send({ subject: 'x', ...body })
          .expect(201)
      ).body;

    expect((await ticket({ priority: 'URGENT' })).dueAt).toBeNull();
    await create(admin, { name: 'Chats only', conditions: { channelTypes: ['TELEGRAM'] }, resolutionMinutes: 5 });
    await create(admin, { name: 'Inactive', active: false, resolutionMinutes: 7 });
    await create(admin, { name: 'Urgent', conditions: { priorities: ['URGENT'] }, resolutionMinutes: 60 });
    await create(admin, { name: 'Queue', conditions: { queueIds: [queueId] }, resolutionMinutes: 120 });
    await create(admin, {
      name: 'Early but created last',
      order: 1,
      conditions: { priorities: ['LOW'] },
      resolutionMinutes: 9,
    });

    expect(dueMinutes(await ticket({ priority: 'URGENT' }))).toBe(60);
    expect(dueMinutes(await ticket({ priority: 'URGENT', queueId }))).toBe(60);
    expect(dueMinutes(await ticket({ priority: 'HIGH', queueId }))).toBe(120);
    expect(dueMinutes(await ticket({ priority: 'HIGH' }))).toBeNull();
    expect(dueMinutes(await ticket({ priority: 'LOW', queueId }))).toBe(9);
    // An explicit dueAt (or null) wins over the policies.
    const explicit = await ticket({ priority: 'URGENT', dueAt: '2030-01-01T00:00:00.000Z' });
    expect(explicit.dueAt).toBe('2030-01-01T00:00:00.000Z');
    expect((await ticket({ priority: 'URGENT', dueAt: null })).dueAt).toBeNull();
  });

  it('documents every SLA route in the OpenAPI document', async () => {
    const doc = await t.http.get('/docs-json').expect(200);
    const paths: Record<string, Record<string, unknown>> = doc.body.paths;
    const methods = (path: string) => Object.keys(paths[path] ?? {}).sort();
    expect(methods('/sla/policies')).toEqual(['get', 'post']);
    expect(methods('/sla/policies/{id}')).toEqual(['delete', 'put']);
    expect(methods('/sla/summary')).toEqual(['get']);
    expect(Object.keys(doc.body.components.schemas)).toEqual(
      expect.arrayContaining(['SlaPolicyResponse', 'CreateSlaPolicyDto', 'SlaSummaryResponse']),
    );
  });
});
