import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { addMember, login, signupWorkspace } from '../../utils/sessions';

describe('workspace and members', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('reads and updates the workspace; the plan is not writable', async () => {
    const admin = await signupWorkspace(t, 'Acme');
    const got = await t.http.get('/workspace').set(admin.headers).expect(200);
    expect(got.body).toMatchObject({
      id: admin.workspaceId,
      plan: 'STARTER',
      timezone: 'UTC',
      createdAt: expect.any(String),
    });
    const put = await t.http
      .put('/workspace')
      .set(admin.headers)
      .send({ name: 'Acme Support', timezone: 'Europe/Berlin' })
      .expect(200);
    expect(put.body).toMatchObject({ name: 'Acme Support', timezone: 'Europe/Berlin', plan: 'STARTER' });
    await t.http.put('/workspace').set(admin.headers).send({ timezone: 'Mars/Olympus' }).expect(400);
    await t.http.put('/workspace').set(admin.headers).send({ plan: 'ENTERPRISE' }).expect(400);
    const agent = await addMember(t, admin, 'AGENT');
    await t.http.get('/workspace').set(agent.headers).expect(200);
    await t.http.put('/workspace').set(agent.headers).send({ name: 'Hijack' }).expect(403);
  });

  it('adds new and existing users, joins them to the default queue, refuses duplicates', async () => {
    const admin = await signupWorkspace(t);
    const created = await t.http
      .post('/workspace/members')
      .set(admin.headers)
      .send({ email: 'New.Agent@Example.com', name: 'New Agent', role: 'AGENT', password: 'password-123' })
      .expect(201);
    expect(created.body).toEqual({
      userId: expect.any(String),
      email: 'new.agent@example.com',
      name: 'New Agent',
      role: 'AGENT',
      createdAt: expect.any(String),
    });
    const inQueue: unknown[] = await t.app
      .get(DataSource)
      .query(
        `SELECT 1 FROM queue_members qm JOIN queues q ON q.id = qm.queue_id WHERE q.is_default AND q.workspace_id = $1 AND qm.user_id = $2`,
        [admin.workspaceId, created.body.userId],
      );
    expect(inQueue).toHaveLength(1);
    await t.http
      .post('/workspace/members')
      .set(admin.headers)
      .send({ email: 'new.agent@example.com', name: 'Again', role: 'AGENT' })
      .expect(409);
    const noPassword = await t.http
      .post('/workspace/members')
      .set(admin.headers)
      .send({ email: 'fresh@example.com', name: 'Fresh', role: 'AGENT' })
      .expect(400);
    expect(noPassword.body.details[0].field).toBe('password');
    await t.http
      .post('/workspace/members')
      .set(admin.headers)
      .send({ email: 'x@example.com', name: 'X', role: 'OWNER', password: 'password-123' })
      .expect(400);

    // An existing user (member elsewhere) joins without a password and keeps theirs.
    const other = await signupWorkspace(t);
    const added = await t.http
      .post('/workspace/members')
      .set(other.headers)
      .send({ email: 'new.agent@example.com', name: 'Ignored', role: 'SUPERVISOR' })
      .expect(201);
    expect(added.body).toMatchObject({ userId: created.body.userId, name: 'New Agent', role: 'SUPERVISOR' });
    const session = await login(t, 'new.agent@example.com', 'password-123', other.workspaceId);
    const me = await t.http.get('/permissions/me').set(session.headers).expect(200);
    expect(me.body.role).toBe('SUPERVISOR');
  });

  it('changes roles and removes members, never the last admin', async () => {
    const admin = await signupWorkspace(t);
    const agent = await addMember(t, admin, 'AGENT');
    const promoted = await t.http
      .put(`/workspace/members/${agent.userId}`)
      .set(admin.headers)
      .send({ role: 'SUPERVISOR' })
      .expect(200);
    expect(promoted.body.role).toBe('SUPERVISOR');
    const lastAdmin = await t.http
      .put(`/workspace/members/${admin.userId}`)
      .set(admin.headers)
      .send({ role: 'AGENT' })
      .expect(409);
    expect(lastAdmin.body.code).toBe('conflict');
    await t.http.delete(`/workspace/members/${admin.userId}`).set(admin.headers).expect(409);
    await t.http.delete(`/workspace/members/${agent.userId}`).set(admin.headers).expect(204);
    await t.http.get('/workspace').set(agent.headers).expect(403);
    await t.http.delete(`/workspace/members/${agent.userId}`).set(admin.headers).expect(404);
    await t.http.put('/workspace/members/not-a-uuid').set(admin.headers).send({ role: 'AGENT' }).expect(404);
  });

  it('lists members with paging', async () => {
    const admin = await signupWorkspace(t);
    await addMember(t, admin, 'AGENT');
    await addMember(t, admin, 'SUPERVISOR');
    const first = await t.http.get('/workspace/members').query({ limit: '2' }).set(admin.headers).expect(200);
    expect(first.body.data.map((m: { role: string }) => m.role)).toEqual(['SUPERVISOR', 'AGENT']);
    const second = await t.http
      .get('/workspace/members')
      .query({ limit: '2', cursor: first.body.nextCursor })
      .set(admin.headers)
      .expect(200);
    expect(second.body).toEqual({
      data: [expect.objectContaining({ userId: admin.userId, role: 'ADMIN' })],
      nextCursor: null,
    });
  });

  it('keeps members inside their workspace', async () => {
    const a = await signupWorkspace(t);
    const b = await signupWorkspace(t);
    const agentA = await addMember(t, a, 'AGENT');
    const listB = await t.http.get('/workspace/members').set(b.headers).expect(200);
    expect(listB.body.data.map((m: { userId: string }) => m.userId)).toEqual([b.userId]);
    await t.http.put(`/workspace/members/${agentA.userId}`).set(b.headers).send({ role: 'ADMIN' }).expect(404);
    await t.http.delete(`/workspace/members/${agentA.userId}`).set(b.headers).expect(404);
    await t.http.get('/workspace').set(agentA.headers).expect(200);
    // B's admin cannot reach A's workspace with A's id in the header.
    const cross = await t.http
      .get('/workspace')
      .set({ ...b.headers, 'x-workspace-id': a.workspaceId })
      .expect(403);
    expect(cross.body.code).toBe('not_a_member');
  });
});
