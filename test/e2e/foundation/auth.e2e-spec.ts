import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID, scryptSync } from 'node:crypto';
import { DataSource } from 'typeorm';
import { TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD, type TestApp, createTestApp } from '../../utils/test-app';
import { loginAdmin, signupWorkspace } from '../../utils/sessions';

describe('authentication', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT: '5' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('logs the bootstrap admin in with the documented response', async () => {
    const res = await t.http
      .post('/auth/login')
      .send({ email: TEST_ADMIN_EMAIL.toUpperCase(), password: TEST_ADMIN_PASSWORD })
      .expect(200);
    expect(res.body).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 43200,
      user: { email: TEST_ADMIN_EMAIL, name: 'Admin' },
    });
    expect(typeof res.body.accessToken).toBe('string');
    expect(res.body.workspaces).toEqual([
      { id: expect.any(String), name: 'Default', role: 'ADMIN', plan: 'ENTERPRISE' },
    ]);
  });

  it('gives the same 401 for a wrong password and an unknown email', async () => {
    const wrong = await t.http.post('/auth/login').send({ email: TEST_ADMIN_EMAIL, password: 'nope-nope' }).expect(401);
    const unknown = await t.http
      .post('/auth/login')
      .send({ email: 'ghost@example.com', password: 'nope-nope' })
      .expect(401);
    expect(wrong.body).toMatchObject({ statusCode: 401, code: 'invalid_credentials' });
    expect(unknown.body.message).toBe(wrong.body.message);
  });

  it('upgrades a password hash of a lower scrypt cost at the next successful login', async () => {
    const email = `rehash-${randomUUID()}@example.com`;
    await t.http
      .post('/auth/signup')
      .send({ workspaceName: 'Rehash Co', name: 'Rae', email, password: 'password-123' })
      .expect(201);
    // A hash from before the cost was raised: N=512 is below the test cost (1024; 32768 in production).
    const salt = randomBytes(16);
    const key = scryptSync('password-123', salt, 64, { N: 512, r: 8, p: 1 });
    const old = `scrypt$512$${salt.toString('base64')}$${key.toString('base64')}`;
    const db = t.app.get(DataSource);
    await db.query(`UPDATE users SET password_hash = $1 WHERE email = $2`, [old, email]);
    const stored = async (): Promise<string> =>
      ((await db.query(`SELECT password_hash FROM users WHERE email = $1`, [email])) as { password_hash: string }[])[0]!
        .password_hash;

    await t.http.post('/auth/login').send({ email, password: 'wrong-pass' }).expect(401);
    expect(await stored()).toBe(old);
    await t.http.post('/auth/login').send({ email, password: 'password-123' }).expect(200);
    const upgraded = await stored();
    expect(upgraded).toMatch(/^scrypt\$1024\$/);
    await t.http.post('/auth/login').send({ email, password: 'password-123' }).expect(200);
    expect(await stored()).toBe(upgraded);
    await t.http.post('/auth/login').send({ email, password: 'wrong-pass' }).expect(401);
  });

  it('validates the login body', async () => {
    const res = await t.http.post('/auth/login').send({ email: 'not-an-email' }).expect(400);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual(['email', 'password']);
  });

  it('rate-limits login attempts per IP and email with Retry-After', async () => {
    const email = `limited-${randomUUID()}@example.com`;
    for (let i = 0; i < 5; i++) await t.http.post('/auth/login').send({ email, password: 'wrong-pass' }).expect(401);
    const limited = await t.http.post('/auth/login').send({ email, password: 'wrong-pass' }).expect(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another email from the same IP is not affected.
    await t.http.post('/auth/login').send({ email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD }).expect(200);
  });

  it('signs up a STARTER workspace with the caller as ADMIN; a taken email is 409', async () => {
    const res = await t.http
      .post('/auth/signup')
      .send({ workspaceName: 'Signup Co', name: 'Sam', email: 'Sam@Signup.test', password: 'password-123' })
      .expect(201);
    expect(res.body.user.email).toBe('sam@signup.test');
    expect(res.body.workspaces).toEqual([
      { id: expect.any(String), name: 'Signup Co', role: 'ADMIN', plan: 'STARTER' },
    ]);
    const again = await t.http
      .post('/auth/signup')
      .send({ workspaceName: 'Other', name: 'Sam', email: 'sam@signup.test', password: 'password-123' })
      .expect(409);
    expect(again.body.code).toBe('conflict');
    const short = await t.http
      .post('/auth/signup')
      .send({ workspaceName: 'X', name: 'Y', email: 'y@y.test', password: 'short' })
      .expect(400);
    expect(short.body.details[0].field).toBe('password');
  });

  it('refuses requests without credentials or with a bad token', async () => {
    const none = await t.http.get('/workspace').expect(401);
    expect(none.body).toMatchObject({ statusCode: 401, code: 'unauthenticated', requestId: expect.any(String) });
    await t.http.get('/workspace').set('authorization', 'Bearer not.a.jwt').expect(401);
    await t.http.get('/workspace').set('authorization', 'Bearer sit_unknown').expect(401);
    await t.http.get('/workspace').set('authorization', 'Basic abc').expect(401);
  });

  it('requires x-workspace-id with a user JWT and membership of that workspace', async () => {
    const admin = await loginAdmin(t);
    const missing = await t.http.get('/workspace').set('authorization', `Bearer ${admin.token}`).expect(400);
    expect(missing.body).toMatchObject({
      code: 'validation_failed',
      details: [{ field: 'x-workspace-id', message: 'header is required' }],
    });
    const other = await signupWorkspace(t);
    const foreign = await t.http
      .get('/workspace')
      .set('authorization', `Bearer ${admin.token}`)
      .set('x-workspace-id', other.workspaceId)
      .expect(403);
    expect(foreign.body.code).toBe('not_a_member');
    await t.http
      .get('/workspace')
      .set('authorization', `Bearer ${admin.token}`)
      .set('x-workspace-id', randomUUID())
      .expect(403);
    await t.http
      .get('/workspace')
      .set('authorization', `Bearer ${admin.token}`)
      .set('x-workspace-id', 'garbage')
      .expect(403);
  });

  it('creates more workspaces for a user with POST /workspaces', async () => {
    const owner = await signupWorkspace(t);
    const res = await t.http
      .post('/workspaces')
      .set('authorization', `Bearer ${owner.token}`)
      .send({ name: 'Second' })
      .expect(201);
    expect(res.body).toMatchObject({ name: 'Second', plan: 'STARTER', timezone: 'UTC' });
    const ws = await t.http
      .get('/workspace')
      .set('authorization', `Bearer ${owner.token}`)
      .set('x-workspace-id', res.body.id)
      .expect(200);
    expect(ws.body.id).toBe(res.body.id);
    const login = await t.http.post('/auth/login').send({ email: owner.email, password: 'password-123' }).expect(200);
    expect(login.body.workspaces).toHaveLength(2);
    await t.http.post('/workspaces').send({ name: 'x' }).expect(401);
  });
});

describe('sign-up switched off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { SIGNUP_ENABLED: 'false' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses POST /auth/signup with 403', async () => {
    const res = await t.http
      .post('/auth/signup')
      .send({ workspaceName: 'W', name: 'N', email: 'n@n.test', password: 'password-123' })
      .expect(403);
    expect(res.body.code).toBe('forbidden');
  });
});

describe('sign-up rate limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { SIGNUP_RATE_LIMIT: '2' } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('allows SIGNUP_RATE_LIMIT sign-ups an hour per IP', async () => {
    const body = (n: number) => ({
      workspaceName: `W${n}`,
      name: 'N',
      email: `n${n}@rate.test`,
      password: 'password-123',
    });
    await t.http.post('/auth/signup').send(body(1)).expect(201);
    await t.http.post('/auth/signup').send(body(2)).expect(201);
    const limited = await t.http.post('/auth/signup').send(body(3)).expect(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3000);
  });
});
