import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { type TestApp, TEST_ADMIN_PASSWORD, createTestApp } from '../../utils/test-app';
import { apiToken, loginAdmin, setPlan, signupWorkspace } from '../../utils/sessions';
import { base64Signature, connectCustom, hexSignature, inboxEnv, postCustom } from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';

const META_VERIFY = `meta-verify-${randomBytes(8).toString('hex')}`;
const META_SECRET = `meta-secret-${randomBytes(8).toString('hex')}`;

/**
 * Issue 9 item 3: a run with request logging on (development mode, debug level) is captured, and
 * none of the secrets the run used may appear in it.
 */
describe('Logs carry no secrets', () => {
  let t: TestApp;
  let mock: MockPlatform;
  const lines: string[] = [];
  const secrets = new Map<string, string>();
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({
      env: inboxEnv(mock, {
        NODE_ENV: 'development',
        LOG_LEVEL: 'debug',
        META_VERIFY_TOKEN: META_VERIFY,
        META_APP_SECRET: META_SECRET,
        META_APP_ID: 'app-1',
      }),
      logStream: { write: (line: string) => void lines.push(line) },
    });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  it('greps the captured logs for every secret the run used', async () => {
    secrets.set('bootstrap password', TEST_ADMIN_PASSWORD);
    secrets.set('meta verify token', META_VERIFY);
    secrets.set('meta app secret', META_SECRET);
    const admin = await loginAdmin(t);
    secrets.set('admin JWT', admin.token);
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');

    // Signup: the password; the JWT used on requests; a cookie header.
    const owner = await signupWorkspace(t, 'Logs');
    secrets.set('owner JWT', owner.token);
    await t.http.get('/contacts').set(owner.headers).set('cookie', 'session=cookie-secret-value-1').expect(200);
    secrets.set('cookie', 'cookie-secret-value-1');
    await t.http.post('/auth/login').send({ email: owner.email, password: 'wrong-password-secret-9' }).expect(401);
    secrets.set('wrong password', 'wrong-password-secret-9');

    // API token: its value on creation and on use.
    const token = await apiToken(t, admin, ['catalog:write']);
    secrets.set('api token', token.token);
    await t.http.get('/catalog').set(token.headers).expect(200);
    await t.http.get('/catalog').set('x-api-key', token.token);

    // Custom Channel: inbound secret, signature header (valid and invalid), outbound secret.
    const channel = await connectCustom(t, admin, mock);
    secrets.set('custom inbound secret', channel.inboundSecret);
    secrets.set('custom outbound secret', channel.outboundSecret!);
    const raw = JSON.stringify({ senderId: 'log-1', text: 'hi' });
    const signature = hexSignature(channel.inboundSecret, raw);
    secrets.set('custom signature', signature.slice('sha256='.length));
    await postCustom(t, channel, raw).expect(200);
    await postCustom(t, channel, raw, 'sha256=deadbeefbadsignature00').expect(401);
    secrets.set('bad custom signature', 'deadbeefbadsignature00');

    // Telegram: bot token (in the platform URL) and the secret-token header of every webhook.
    const botToken = `${Math.floor(Math.random() * 1e9)}:AA${randomBytes(12).toString('hex')}`;
    await t.http.post('/channels/connect').set(admin.headers).send({ type: 'TELEGRAM', botToken }).expect(201);
    secrets.set('telegram bot token', botToken);
    const set = mock.received(`/telegram/bot${botToken}/setWebhook`, 'POST')[0]!.json as { secret_token: string };
    secrets.set('telegram secret token', set.secret_token);
    await t.http
      .post('/webhooks/telegram')
      .set('x-telegram-bot-api-secret-token', set.secret_token)
      .send({
        update_id: 1,
        message: { message_id: 1, from: { id: 5 }, chat: { id: 5, type: 'private' }, date: 1, text: 'x' },
      })
      .expect(200);
    await t.http
      .post('/webhooks/telegram')
      .set('x-messenger-bot-api-secret-token', 'messenger-secret-guess-77')
      .send({});
    secrets.set('guessed messenger secret', 'messenger-secret-guess-77');

    // Meta: the verify token in the query, the signature header.
    await t.http
      .get('/webhooks/meta')
      .query({ 'hub.mode': 'subscribe', 'hub.verify_token': META_VERIFY, 'hub.challenge': '424242' })
      .expect(200);
    const metaRaw = JSON.stringify({ object: 'page', entry: [] });
    const metaSig = hexSignature(META_SECRET, metaRaw);
    secrets.set('meta signature', metaSig.slice('sha256='.length));
    await t.http
      .post('/webhooks/meta')
      .set('content-type', 'application/json')
      .set('x-hub-signature-256', metaSig)
      .send(metaRaw);

    // LINE: a signature header.
    const lineRaw = JSON.stringify({ destination: 'Udest', events: [] });
    const lineSig = base64Signature('line-secret-not-known', lineRaw);
    secrets.set('line signature', lineSig);
    await t.http
      .post('/webhooks/line')
      .set('content-type', 'application/json')
      .set('x-line-signature', lineSig)
      .send(lineRaw);

    // New member: their password.
    await t.http
      .post('/workspace/members')
      .set(admin.headers)
      .send({
        email: `m-${randomBytes(4).toString('hex')}@example.com`,
        name: 'M',
        role: 'AGENT',
        password: 'member-pass-secret-5',
      })
      .expect(201);
    secrets.set('member password', 'member-pass-secret-5');
    await t.drain();
    await new Promise((resolve) => setTimeout(resolve, 200));

    const log = lines.join('');
    // The run did log requests (so the grep below means something).
    expect(lines.length).toBeGreaterThan(20);
    expect(log).toContain('/webhooks/telegram');
    expect(log).toContain('/webhooks/meta');
    const leaked = [...secrets].filter(([, value]) => log.includes(value)).map(([name]) => name);
    expect(leaked).toEqual([]);
  });
});
