import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, randomBytes } from 'node:crypto';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, addMember, apiToken, signupWorkspace } from '../../utils/sessions';

const JWT_SECRET = 'auth-surface-jwt-secret-0123456789';

function jwt(header: Record<string, unknown>, claims: Record<string, unknown>, secret = JWT_SECRET): string {
  const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const input = `${part(header)}.${part(claims)}`;
  const alg = header.alg === 'HS384' ? 'sha384' : header.alg === 'HS512' ? 'sha512' : 'sha256';
  if (header.alg === 'none') return `${input}.`;
  return `${input}.${createHmac(alg, secret).update(input).digest('base64url')}`;
}

/**
 * Issue 9 items 4 and 5, in production mode: token scopes, HS256 only, per-IP login limit with
 * TRUST_PROXY=false, security headers, no /docs in production, website syncs need catalog.manage.
 */
describe('Hardening (issue 9): tokens, sessions, headers and the production surface', () => {
  let t: TestApp;
  let admin: Session;
  let agent: Session;
  beforeAll(async () => {
    t = await createTestApp({
      env: {
        NODE_ENV: 'production',
        JWT_SECRET,
        LOGIN_RATE_LIMIT: '100',
        LOGIN_IP_RATE_LIMIT: '12',
        TRUST_PROXY: 'false',
      },
    });
    admin = await signupWorkspace(t, 'Surface');
    agent = await addMember(t, admin, 'AGENT');
  });
  afterAll(() => t.close());

  it('a token only creates tokens with scopes it holds', async () => {
    const bare = await apiToken(t, admin, []);
    const refused = await t.http
      .post('/developer/tokens')
      .set(bare.headers)
      .send({ name: 'escalate', scopes: ['catalog:write'] });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ statusCode: 403, code: 'insufficient_scope' });
    await t.http.post('/developer/tokens').set(bare.headers).send({ name: 'same', scopes: [] }).expect(201);

    const writer = await apiToken(t, admin, ['catalog:write']);
    await t.http
      .post('/developer/tokens')
      .set(writer.headers)
      .send({ name: 'same scope', scopes: ['catalog:write'] })
      .expect(201);
    // A user session (ADMIN) may grant any scope.
    await t.http
      .post('/developer/tokens')
      .set(admin.headers)
      .send({ name: 'u', scopes: ['catalog:write'] })
      .expect(201);
  });

  it('accepts only HS256 JWTs with an expiry', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = { sub: admin.userId, iat: now, exp: now + 600 };
    const call = (token: string) =>
      t.http.get('/contacts').set({ authorization: `Bearer ${token}`, 'x-workspace-id': admin.workspaceId });
    expect((await call(jwt({ alg: 'HS256', typ: 'JWT' }, claims))).status).toBe(200);
    for (const header of [
      { alg: 'HS384', typ: 'JWT' },
      { alg: 'HS512', typ: 'JWT' },
      { alg: 'none', typ: 'JWT' },
    ]) {
      const res = await call(jwt(header, claims));
      expect({ alg: header.alg, status: res.status }).toEqual({ alg: header.alg, status: 401 });
    }
    expect((await call(jwt({ alg: 'HS256', typ: 'JWT' }, { sub: admin.userId, iat: now }))).status).toBe(401);
    // What the service itself signs is HS256.
    expect(JSON.parse(Buffer.from(admin.token.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'HS256' });
  });

  it('limits logins per IP over all emails; with TRUST_PROXY=false X-Forwarded-For does not change the IP', async () => {
    // One login (the agent's) was used earlier; 12 attempts per IP in all.
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) {
      const res = await t.http
        .post('/auth/login')
        .set('x-forwarded-for', `203.0.113.${i}`)
        .send({ email: `nobody-${randomBytes(3).toString('hex')}@example.com`, password: 'wrong-password' });
      statuses.push(res.status);
    }
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(12);
    expect(statuses.slice(-2)).toEqual([429, 429]);
  });

  it('sends security headers and serves no /docs in production', async () => {
    const res = await t.http.get('/health');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['strict-transport-security']).toMatch(/max-age=/);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-powered-by']).toBeUndefined();
    await t.http.get('/docs-json').expect(404);
    await t.http.get('/docs').expect(404);
  });

  it('agents cannot list or read website syncs (catalog.manage)', async () => {
    const res = await t.http.get('/catalog/websites').set(agent.headers);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('forbidden');
    await t.http.get('/catalog').set(agent.headers).expect(200);
  });
});
