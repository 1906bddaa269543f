import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import { connectCustom, eventReaches, inboxEnv, postCustom, sql } from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';

/** DESIGN §2: every error is {statusCode, code, message, details?, requestId}. */
function expectValidation(body: Record<string, unknown>, field: string): void {
  expect(body).toMatchObject({ statusCode: 400, code: 'validation_failed' });
  expect(typeof body.message).toBe('string');
  expect(typeof body.requestId).toBe('string');
  expect(body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
}

const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
const nestedObject = (levels: number): string => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

describe('Hardening (issue 9): input the database cannot hold is a 400, never a 500', () => {
  let t: TestApp;
  let mock: MockPlatform;
  let admin: Session;
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock) });
    admin = await signupWorkspace(t, 'Hardening');
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  it('refuses U+0000 in JSON strings with validation_failed naming the field', async () => {
    const company = await t.http.post('/contacts/companies').set(admin.headers).send({ name: 'a\u0000b' });
    expect(company.status).toBe(400);
    expectValidation(company.body, 'name');

    const contact = await t.http
      .post('/contacts')
      .set(admin.headers)
      .send({ name: 'Ann', customFields: { note: 'x\u0000' } });
    expect(contact.status).toBe(400);
    expectValidation(contact.body, 'customFields.note');

    const signup = await t.http
      .post('/auth/signup')
      .send({ workspaceName: 'W\u0000', name: 'N', email: 'nul@example.com', password: 'password-123' });
    expect(signup.status).toBe(400);
    expectValidation(signup.body, 'workspaceName');
    const users = await sql(t, `SELECT 1 FROM users WHERE email = 'nul@example.com'`);
    expect(users).toHaveLength(0);
  });

  it('refuses U+0000 in query parameters (search of every list)', async () => {
    for (const path of ['/contacts', '/conversations', '/catalog', '/tickets']) {
      const res = await t.http.get(`${path}?search=a%00b`).set(admin.headers);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expectValidation(res.body, 'search');
    }
  });

  it('refuses JSON nested deeper than 64 levels before validation, also unauthenticated', async () => {
    for (const [path, headers] of [
      ['/auth/login', {}],
      ['/auth/signup', {}],
      ['/contacts', admin.headers],
    ] as const) {
      for (const raw of [`{"email":${nested(5000)}}`, nestedObject(200)]) {
        const res = await t.http.post(path).set(headers).set('content-type', 'application/json').send(raw);
        expect({ path, status: res.status }).toEqual({ path, status: 400 });
        expect(res.body.code).toBe('validation_failed');
      }
    }
    // 64 levels is still a normal validation answer (not the depth refusal).
    const ok = await t.http
      .post('/auth/login')
      .set('content-type', 'application/json')
      .send(`{"email":${nested(60)}}`);
    expect(ok.status).toBe(400);
    expect(ok.body.message).not.toMatch(/nested/);
  });

  it('a correctly signed Custom Channel message with U+0000 is stored (raw bytes kept), answered 200 and processed', async () => {
    const enterprise = await signupWorkspace(t, 'Enterprise');
    await setPlan(t, enterprise.workspaceId, 'ENTERPRISE');
    const channel = await connectCustom(t, enterprise, mock);
    const raw = JSON.stringify({ senderId: 'cust\u0000-1', messageId: 'nul-1', text: 'hello\u0000world' });
    const res = await postCustom(t, channel, raw);
    expect(res.status).toBe(200);
    const eventId = res.body.eventId as string;
    expect(eventId).toEqual(expect.any(String));
    await t.drain();
    await eventReaches(t, enterprise, channel.id, eventId);
    const [row] = await sql<{ raw_body: Buffer; payload: { text: string } }>(
      t,
      `SELECT raw_body, payload FROM inbound_events WHERE id = $1`,
      [eventId],
    );
    expect(Buffer.from(row!.raw_body).toString('utf8')).toBe(raw);
    expect(row!.payload.text).toBe('hello\uFFFDworld');
    const messages = await sql<{ text: string }>(
      t,
      `SELECT text FROM messages WHERE workspace_id = $1 AND direction = 'INBOUND'`,
      [enterprise.workspaceId],
    );
    expect(messages.map((m) => m.text)).toEqual(['hello\uFFFDworld']);

    const deep = `{"senderId":"x","text":${nested(5000)}}`;
    const refused = await postCustom(t, channel, deep);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('validation_failed');
  });
});
