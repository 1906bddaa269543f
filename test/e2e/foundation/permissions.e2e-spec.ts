import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { addMember, signupWorkspace } from '../../utils/sessions';

/** DESIGN §3.4's literal list, in its order (never imported from src/). */
const PERMISSION_KEYS = [
  'conversations.view_all',
  'conversations.reply',
  'conversations.assign',
  'conversations.views',
  'tickets.view',
  'tickets.manage',
  'tickets.settings',
  'contacts.view',
  'contacts.manage',
  'contacts.import',
  'contacts.merge',
  'contacts.fields',
  'queues.manage',
  'sla.manage',
  'automations.manage',
  'ai_agents.manage',
  'analytics.view',
  'analytics.dashboards',
  'reports.view',
  'reports.export',
  'catalog.view',
  'catalog.manage',
  'channels.manage',
  'developer.manage',
  'permissions.manage',
  'workspace.manage',
];
/** DESIGN §3.4 defaults: SUPERVISOR all but four; AGENT six keys. */
const SUPERVISOR_EXCLUDED = ['channels.manage', 'developer.manage', 'permissions.manage', 'workspace.manage'];
const DEFAULT_MATRIX = {
  ADMIN: PERMISSION_KEYS,
  SUPERVISOR: PERMISSION_KEYS.filter((key) => !SUPERVISOR_EXCLUDED.includes(key)),
  AGENT: ['conversations.reply', 'tickets.view', 'tickets.manage', 'contacts.view', 'contacts.manage', 'catalog.view'],
};

describe('permissions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('returns roles, described keys and the default matrix', async () => {
    const admin = await signupWorkspace(t);
    const res = await t.http.get('/permissions').set(admin.headers).expect(200);
    expect(res.body.roles).toEqual(['ADMIN', 'SUPERVISOR', 'AGENT']);
    expect(res.body.permissions.map((p: { key: string }) => p.key)).toEqual(PERMISSION_KEYS);
    expect(res.body.permissions[0]).toEqual({ key: 'conversations.view_all', description: expect.any(String) });
    expect(res.body.matrix.ADMIN).toEqual(PERMISSION_KEYS);
    expect(res.body.matrix.SUPERVISOR).toEqual(DEFAULT_MATRIX.SUPERVISOR);
    expect(res.body.matrix.SUPERVISOR).not.toContain('permissions.manage');
    expect(res.body.matrix.AGENT).toEqual([
      'conversations.reply',
      'tickets.view',
      'tickets.manage',
      'contacts.view',
      'contacts.manage',
      'catalog.view',
    ]);
  });

  it('enforces the matrix and applies changes at once', async () => {
    const admin = await signupWorkspace(t);
    const agent = await addMember(t, admin, 'AGENT');
    const supervisor = await addMember(t, admin, 'SUPERVISOR');
    await t.http.get('/permissions').set(agent.headers).expect(403);
    await t.http.get('/permissions').set(supervisor.headers).expect(403);
    await t.http.get('/developer/tokens').set(agent.headers).expect(403);
    const me = await t.http.get('/permissions/me').set(agent.headers).expect(200);
    expect(me.body).toEqual({ role: 'AGENT', permissions: [...DEFAULT_MATRIX.AGENT], authenticatedBy: 'user' });

    const updated = await t.http
      .put('/permissions')
      .set(admin.headers)
      .send({ matrix: { AGENT: ['conversations.reply', 'developer.manage'] } })
      .expect(200);
    expect(updated.body.matrix.AGENT).toEqual(['conversations.reply', 'developer.manage']);
    expect(updated.body.matrix.SUPERVISOR).toEqual(DEFAULT_MATRIX.SUPERVISOR);
    await t.http.get('/developer/tokens').set(agent.headers).expect(200);
    const meAfter = await t.http.get('/permissions/me').set(agent.headers).expect(200);
    expect(meAfter.body.permissions).toEqual(['conversations.reply', 'developer.manage']);

    const reset = await t.http.post('/permissions/reset').set(admin.headers).expect(200);
    expect(reset.body.matrix.AGENT).toEqual(DEFAULT_MATRIX.AGENT);
    await t.http.get('/developer/tokens').set(agent.headers).expect(403);
  });

  it('refuses to reduce ADMIN and unknown keys, changing nothing', async () => {
    const admin = await signupWorkspace(t);
    const reduce = await t.http
      .put('/permissions')
      .set(admin.headers)
      .send({ matrix: { ADMIN: ['tickets.view'], AGENT: [] } })
      .expect(400);
    expect(reduce.body).toMatchObject({ code: 'validation_failed', details: [{ field: 'matrix.ADMIN' }] });
    const unknown = await t.http
      .put('/permissions')
      .set(admin.headers)
      .send({ matrix: { AGENT: ['tickets.fly'] } })
      .expect(400);
    expect(unknown.body.details[0].field).toBe('matrix.AGENT');
    await t.http
      .put('/permissions')
      .set(admin.headers)
      .send({ matrix: { OWNER: [] } })
      .expect(400);
    await t.http.put('/permissions').set(admin.headers).send({}).expect(400);
    const after = await t.http.get('/permissions').set(admin.headers).expect(200);
    expect(after.body.matrix.AGENT).toEqual(DEFAULT_MATRIX.AGENT);
    // ADMIN with every key is accepted (no change).
    await t.http
      .put('/permissions')
      .set(admin.headers)
      .send({ matrix: { ADMIN: PERMISSION_KEYS } })
      .expect(200);
  });

  it('keeps each workspace’s matrix to itself', async () => {
    const a = await signupWorkspace(t);
    const b = await signupWorkspace(t);
    await t.http
      .put('/permissions')
      .set(a.headers)
      .send({ matrix: { AGENT: [] } })
      .expect(200);
    const inB = await t.http.get('/permissions').set(b.headers).expect(200);
    expect(inB.body.matrix.AGENT).toEqual(DEFAULT_MATRIX.AGENT);
    await t.http.post('/permissions/reset').set(b.headers).expect(200);
    const inA = await t.http.get('/permissions').set(a.headers).expect(200);
    expect(inA.body.matrix.AGENT).toEqual([]);
  });

  it('refuses SUPERVISOR on channels, developer, permissions and workspace endpoints (DESIGN §3.4)', async () => {
    const admin = await signupWorkspace(t);
    const supervisor = await addMember(t, admin, 'SUPERVISOR');
    const calls: [string, string, object?][] = [
      ['get', '/channels'],
      ['post', '/channels/connect', { type: 'TELEGRAM', botToken: '1:AA' }],
      ['delete', '/channels/00000000-0000-4000-8000-000000000000'],
      ['get', '/developer/tokens'],
      ['post', '/developer/tokens', { name: 'x' }],
      ['delete', '/developer/tokens/00000000-0000-4000-8000-000000000000'],
      ['get', '/permissions'],
      ['put', '/permissions', { matrix: { AGENT: [] } }],
      ['post', '/permissions/reset'],
      ['put', '/workspace', { name: 'Renamed' }],
      ['post', '/workspace/members', { email: 'x@example.com', name: 'X', role: 'AGENT', password: 'password-123' }],
      ['put', `/workspace/members/${admin.userId}`, { role: 'AGENT' }],
      ['delete', `/workspace/members/${admin.userId}`],
    ];
    for (const [method, path, body] of calls) {
      const req = (t.http as unknown as Record<string, (p: string) => import('supertest').Test>)[method]!(path).set(
        supervisor.headers,
      );
      const res = await (body ? req.send(body) : req);
      expect({ method, path, status: res.status, code: res.body.code }).toEqual({
        method,
        path,
        status: 403,
        code: 'forbidden',
      });
    }
    // What SUPERVISOR holds still works.
    await t.http.get('/contacts').set(supervisor.headers).expect(200);
    await t.http.get('/catalog/websites').set(supervisor.headers).expect(200);
  });
});
