import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '../../utils/test-app';
import { createTestApp } from '../../utils/test-app';
import { type Session, addMember, apiToken, signupWorkspace } from '../../utils/sessions';

const WIDGETS = [
  { id: 'new', type: 'METRIC', source: 'summary', metric: 'conversations.new', position: { x: 0, y: 0, w: 3, h: 2 } },
  {
    type: 'timeseries',
    source: 'inbox',
    metric: 'series.inbound',
    options: { color: 'blue' },
    position: { x: 3, y: 0, w: 9, h: 4 },
  },
  { type: 'BAR', source: 'tickets', metric: 'byStatus', position: { x: 0, y: 4, w: 6, h: 4 } },
  { type: 'TABLE', source: 'workforce', metric: 'agents.onlineSeconds', position: { x: 6, y: 4, w: 6, h: 4 } },
];

describe('Dashboards', () => {
  let t: TestApp;
  let admin: Session;
  let supervisor: Session;
  let agent: Session;

  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT: '100000' } });
    admin = await signupWorkspace(t, 'Dash');
    supervisor = await addMember(t, admin, 'SUPERVISOR');
    agent = await addMember(t, admin, 'AGENT');
  }, 120_000);
  afterAll(async () => {
    await t.close();
  });

  it('creates a dashboard from metrics of GET /analytics/meta; private to its owner', async () => {
    const res = await t.http
      .post('/analytics/dashboards')
      .set(admin.headers)
      .send({ name: 'Ops', widgets: WIDGETS })
      .expect(201);
    expect(res.body).toMatchObject({ name: 'Ops', shared: false, ownerId: admin.userId });
    expect(res.body.widgets).toHaveLength(4);
    expect(res.body.widgets[0]).toEqual({ ...WIDGETS[0], options: {} });
    expect(res.body.widgets[1]).toMatchObject({
      type: 'TIMESERIES',
      options: { color: 'blue' },
      id: expect.any(String),
    });
    const id = res.body.id;
    await t.http.get(`/analytics/dashboards/${id}`).set(admin.headers).expect(200);
    await t.http.get(`/analytics/dashboards/${id}`).set(supervisor.headers).expect(404);
    const list = await t.http.get('/analytics/dashboards').set(supervisor.headers).expect(200);
    expect(list.body.data.map((d: { id: string }) => d.id)).not.toContain(id);
    await t.http.put(`/analytics/dashboards/${id}`).set(supervisor.headers).send({ name: 'Mine' }).expect(404);
    await t.http.delete(`/analytics/dashboards/${id}`).set(supervisor.headers).expect(404);
  });

  it('a shared dashboard is visible to others but only its owner changes it', async () => {
    const created = await t.http
      .post('/analytics/dashboards')
      .set(admin.headers)
      .send({ name: 'Team', shared: true })
      .expect(201);
    const id = created.body.id;
    const list = await t.http.get('/analytics/dashboards').set(supervisor.headers).expect(200);
    expect(list.body.data.map((d: { id: string }) => d.id)).toContain(id);
    expect(list.body.nextCursor).toBeNull();
    await t.http.get(`/analytics/dashboards/${id}`).set(supervisor.headers).expect(200);
    expect(
      (await t.http.put(`/analytics/dashboards/${id}`).set(supervisor.headers).send({ name: 'X' }).expect(403)).body
        .code,
    ).toBe('forbidden');
    await t.http.delete(`/analytics/dashboards/${id}`).set(supervisor.headers).expect(403);

    const updated = await t.http
      .put(`/analytics/dashboards/${id}`)
      .set(admin.headers)
      .send({ name: 'Team 2', widgets: [WIDGETS[0]] })
      .expect(200);
    expect(updated.body).toMatchObject({
      name: 'Team 2',
      shared: true,
      widgets: [expect.objectContaining({ id: 'new' })],
    });
    await t.http.delete(`/analytics/dashboards/${id}`).set(admin.headers).expect(204);
    await t.http.get(`/analytics/dashboards/${id}`).set(admin.headers).expect(404);
  });

  it('refuses widgets the analytics endpoints do not produce', async () => {
    const bad = async (widget: Record<string, unknown>, field: string) => {
      const res = await t.http
        .post('/analytics/dashboards')
        .set(admin.headers)
        .send({ name: 'Bad', widgets: [widget] })
        .expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    };
    const position = { x: 0, y: 0, w: 1, h: 1 };
    await bad({ type: 'METRIC', source: 'nope', metric: 'x', position }, 'widgets.0.source');
    await bad({ type: 'METRIC', source: 'summary', metric: 'conversations.bogus', position }, 'widgets.0.metric');
    await bad({ type: 'METRIC', source: 'inbox', metric: 'series.inbound', position }, 'widgets.0.type');
    await bad({ type: 'TIMESERIES', source: 'summary', metric: 'conversations.new', position }, 'widgets.0.type');
    await bad({ type: 'PIE', source: 'summary', metric: 'conversations.new', position }, 'widgets.0.type');
    await bad(
      { type: 'METRIC', source: 'summary', metric: 'conversations.new', position: { x: 0, y: 0, w: 0, h: 1 } },
      'widgets.0.position.w',
    );
    await bad({ type: 'METRIC', source: 'summary', metric: 'conversations.new' }, 'widgets.0.position');
    const dup = await t.http
      .post('/analytics/dashboards')
      .set(admin.headers)
      .send({ name: 'Dup', widgets: [WIDGETS[0], WIDGETS[0]] })
      .expect(400);
    expect(dup.body.details[0].field).toBe('widgets.1.id');
    await t.http.post('/analytics/dashboards').set(admin.headers).send({ widgets: [] }).expect(400);
  });

  it('permissions: AGENT cannot view or create; an API token creates shared dashboards', async () => {
    await t.http.get('/analytics/dashboards').set(agent.headers).expect(403);
    await t.http.post('/analytics/dashboards').set(agent.headers).send({ name: 'A' }).expect(403);
    const token = await apiToken(t, admin);
    const res = await t.http
      .post('/analytics/dashboards')
      .set(token.headers)
      .send({ name: 'Token', shared: false })
      .expect(201);
    expect(res.body).toMatchObject({ ownerId: null, shared: true });
    await t.http.get(`/analytics/dashboards/${res.body.id}`).set(supervisor.headers).expect(200);
    await t.http.get('/analytics/dashboards').expect(401);
  });

  it('another workspace can neither list, get, update nor delete a dashboard', async () => {
    const created = await t.http
      .post('/analytics/dashboards')
      .set(admin.headers)
      .send({ name: 'Shared', shared: true })
      .expect(201);
    const other = await signupWorkspace(t, 'Other');
    const list = await t.http.get('/analytics/dashboards').set(other.headers).expect(200);
    expect(list.body.data).toEqual([]);
    await t.http.get(`/analytics/dashboards/${created.body.id}`).set(other.headers).expect(404);
    await t.http.put(`/analytics/dashboards/${created.body.id}`).set(other.headers).send({ name: 'x' }).expect(404);
    await t.http.delete(`/analytics/dashboards/${created.body.id}`).set(other.headers).expect(404);
    await t.http.get('/analytics/dashboards/not-a-uuid').set(other.headers).expect(404);
  });
});
