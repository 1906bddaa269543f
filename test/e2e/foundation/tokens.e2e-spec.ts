import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { addMember, apiToken, signupWorkspace } from '../../utils/sessions';

describe('API tokens', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('shows the token once, stores only a hash, and lists the record fields', async () => {
    const admin = await signupWorkspace(t);
    const created = await t.http
      .post('/developer/tokens')
      .set(admin.headers)
      .send({ name: 'Feed', scopes: ['catalog:write'], expiresAt: '2099-01-01T00:00:00.000Z' })
      .expect(201);
    expect(created.body.token).toMatch(/^sit_[A-Za-z0-9_-]{43}$/);
    expect(created.body).toMatchObject({
      name: 'Feed',
      prefix: created.body.token.slice(0, 8),
      scopes: ['catalog:write'],
      lastUsedAt: null,
      expiresAt: '2099-01-01T00:00:00.000Z',
    });
    const list = await t.http.get('/developer/tokens').set(admin.headers).expect(200);
    expect(list.body).toEqual({
      data: [expect.objectContaining({ id: created.body.id, prefix: created.body.prefix })],
      nextCursor: null,
    });
    expect(list.body.data[0].token).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(created.body.token);
    const stored: { token_hash: string }[] = await t.app
      .get(DataSource)
      .query('SELECT token_hash FROM api_tokens WHERE id = $1', [created.body.id]);
    expect(stored[0]!.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[0]!.token_hash).not.toContain(created.body.token);
  });

  it('acts as an ADMIN of its workspace, via Bearer or X-Api-Key, and records lastUsedAt', async () => {
    const admin = await signupWorkspace(t);
    const { token, headers } = await apiToken(t, admin);
    const me = await t.http.get('/permissions/me').set(headers).expect(200);
    expect(me.body).toMatchObject({ role: 'ADMIN', authenticatedBy: 'api_token' });
    expect(me.body.permissions).toContain('workspace.manage');
    await t.http.get('/workspace').set('x-api-key', token).expect(200);
    await t.http.get('/workspace').set(headers).set('x-workspace-id', admin.workspaceId).expect(200);
    await t.drain();
    await eventually(async () => {
      const list = await t.http.get('/developer/tokens').set(admin.headers).expect(200);
      expect(list.body.data[0].lastUsedAt).not.toBeNull();
    });
  });

  it('refuses another x-workspace-id with 403 forbidden', async () => {
    const a = await signupWorkspace(t);
    const b = await signupWorkspace(t);
    const { headers } = await apiToken(t, a);
    const res = await t.http.get('/workspace').set(headers).set('x-workspace-id', b.workspaceId).expect(403);
    expect(res.body.code).toBe('forbidden');
  });

  it('validates scopes and expiry', async () => {
    const admin = await signupWorkspace(t);
    const bad = await t.http
      .post('/developer/tokens')
      .set(admin.headers)
      .send({ name: 'x', scopes: ['catalog:read'] })
      .expect(400);
    expect(bad.body.details[0].field).toBe('scopes');
    await t.http
      .post('/developer/tokens')
      .set(admin.headers)
      .send({ name: 'x', expiresAt: '2001-01-01T00:00:00.000Z' })
      .expect(400);
    await t.http.post('/developer/tokens').set(admin.headers).send({ name: 'x', expiresAt: 'tomorrow' }).expect(400);
    await t.http.post('/developer/tokens').set(admin.headers).send({ name: 'x', owner: 'me' }).expect(400);
  });

  it('stops accepting an expired or revoked token', async () => {
    const admin = await signupWorkspace(t);
    const expiring = await t.http
      .post('/developer/tokens')
      .set(admin.headers)
      .send({ name: 'soon', expiresAt: new Date(Date.now() + 60_000).toISOString() })
      .expect(201);
    await t.http.get('/workspace').set('authorization', `Bearer ${expiring.body.token}`).expect(200);
    await t.app
      .get(DataSource)
      .query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [expiring.body.id]);
    await t.http.get('/workspace').set('authorization', `Bearer ${expiring.body.token}`).expect(401);

    const { headers } = await apiToken(t, admin);
    const list = await t.http.get('/developer/tokens').set(admin.headers).expect(200);
    const id = list.body.data.find((row: { name: string }) => row.name === 'test token').id;
    await t.http.delete(`/developer/tokens/${id}`).set(admin.headers).expect(204);
    const revoked = await t.http.get('/workspace').set(headers).expect(401);
    expect(revoked.body.code).toBe('unauthenticated');
    await t.http.delete(`/developer/tokens/${id}`).set(admin.headers).expect(404);
    const after = await t.http.get('/developer/tokens').set(admin.headers).expect(200);
    expect(after.body.data.map((row: { id: string }) => row.id)).not.toContain(id);
  });

  it('keeps tokens inside their workspace', async () => {
    const a = await signupWorkspace(t);
    const b = await signupWorkspace(t);
    const created = await t.http.post('/developer/tokens').set(a.headers).send({ name: 'A token' }).expect(201);
    const listB = await t.http.get('/developer/tokens').set(b.headers).expect(200);
    expect(listB.body.data).toEqual([]);
    await t.http.delete(`/developer/tokens/${created.body.id}`).set(b.headers).expect(404);
    await t.http.delete('/developer/tokens/not-a-uuid').set(b.headers).expect(404);
    await t.http.get('/workspace').set('authorization', `Bearer ${created.body.token}`).expect(200);
  });

  it('pages with limit and cursor', async () => {
    const admin = await signupWorkspace(t);
    for (let i = 0; i < 5; i++)
      await t.http
        .post('/developer/tokens')
        .set(admin.headers)
        .send({ name: `t${i}` })
        .expect(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: Record<string, string> = { limit: '2', ...(cursor ? { cursor } : {}) };
      const page = await t.http.get('/developer/tokens').query(query).set(admin.headers).expect(200);
      seen.push(...page.body.data.map((row: { name: string }) => row.name));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['t4', 't3', 't2', 't1', 't0']);
    await t.http.get('/developer/tokens').query({ limit: '0' }).set(admin.headers).expect(400);
    await t.http.get('/developer/tokens').query({ limit: '101' }).set(admin.headers).expect(400);
    await t.http.get('/developer/tokens').query({ cursor: 'bogus' }).set(admin.headers).expect(400);
  });

  it('is off limits to agents', async () => {
    const admin = await signupWorkspace(t);
    const agent = await addMember(t, admin, 'AGENT');
    const res = await t.http.get('/developer/tokens').set(agent.headers).expect(403);
    expect(res.body.code).toBe('forbidden');
  });
});
