import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DEFAULT_MATRIX, PERMISSION_KEYS } from 'src/core/auth/permissions';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { addMember, signupWorkspace } from '../../utils/sessions';

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
    expect(res.body.permissions).toHaveLength(PERMISSION_KEYS.length);
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
});
