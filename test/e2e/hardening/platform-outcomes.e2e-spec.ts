import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';
import {
  base64Signature,
  conversationOfMessage,
  conversationSatisfies,
  eventReaches,
  hexSignature,
  inboxEnv,
  postTelegramText,
  sql,
} from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';

/**
 * Issue 9 item 9: FAILED outcomes for Meta (Messenger, WhatsApp), Telegram and LINE sends with a real
 * short backoff (OUTBOUND_RETRY_DELAYS=1,2: three attempts, about 1 s then 2 s apart, seen in
 * `next_attempt_at`), each ending FAILED with the platform's own error; and LINE's reply token: one
 * LINE refuses (HTTP 400 "Invalid reply token") or one past its expiry ends SENT through push.
 * The mock answers with the error bodies the platforms document.
 */
const id = (prefix: string): string => `${prefix}${randomBytes(5).toString('hex')}`;

interface AttemptSeen {
  readonly attempts: number;
  readonly next: number | null;
}

describe('Platform sends: real backoff, FAILED with the platform error; LINE reply token → push', () => {
  let t: TestApp;
  let mock: MockPlatform;
  let admin: Session;
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock, { OUTBOUND_RETRY_DELAYS: '1,2' }) });
    admin = await signupWorkspace(t);
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  async function connect(body: Record<string, unknown>): Promise<string> {
    return (await t.http.post('/channels/connect').set(admin.headers).send(body).expect(201)).body.id;
  }

  /** The conversation an acknowledged inbound event created. */
  async function conversationOf(channelId: string, eventId: string): Promise<string> {
    const event = await eventReaches(t, admin, channelId, eventId);
    return conversationOfMessage(t, event.messageId as string);
  }

  async function reply(conversationId: string, text: string): Promise<string> {
    const res = await t.http
      .post(`/conversations/${conversationId}/messages`)
      .set(admin.headers)
      .send({ text })
      .expect(201);
    return res.body.id as string;
  }

  /**
   * Polls the message row until it leaves PENDING; keeps the last `next_attempt_at` seen for each
   * attempt count (while an attempt is in flight the column holds its lease; after it failed, the
   * time of the next attempt).
   */
  async function watch(messageId: string): Promise<{ status: string; seen: AttemptSeen[]; startedAt: number }> {
    const startedAt = Date.now();
    const seen: AttemptSeen[] = [];
    const deadline = Date.now() + 30_000;
    for (;;) {
      const [row] = await sql<{ delivery_status: string; delivery_attempts: number; next_attempt_at: Date | null }>(
        t,
        'SELECT delivery_status, delivery_attempts, next_attempt_at FROM messages WHERE id = $1',
        [messageId],
      );
      const entry = {
        attempts: row!.delivery_attempts,
        next: row!.next_attempt_at ? new Date(row!.next_attempt_at).getTime() : null,
      };
      const k = seen.findIndex((a) => a.attempts === entry.attempts);
      if (k >= 0) seen[k] = entry;
      else seen.push(entry);
      if (row!.delivery_status !== 'PENDING') return { status: row!.delivery_status, seen, startedAt };
      if (Date.now() > deadline) throw new Error(`message ${messageId} still PENDING: ${JSON.stringify(seen)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Three attempts about 1 s then 2 s apart, then FAILED with `platformError` and no next attempt. */
  async function expectFailedWithBackoff(
    conversationId: string,
    messageId: string,
    sendPath: string,
    platformError: string,
  ): Promise<void> {
    const { status, seen, startedAt } = await watch(messageId);
    expect(status).toBe('FAILED');
    const first = seen.find((a) => a.attempts === 1);
    const second = seen.find((a) => a.attempts === 2);
    const last = seen.find((a) => a.attempts === 3);
    // nextAttemptAt was seen between the attempts (DB clock; generous slack for a loaded machine).
    expect(first?.next).not.toBeNull();
    expect(second?.next).not.toBeNull();
    expect(first!.next! - startedAt).toBeGreaterThan(500);
    expect(first!.next! - startedAt).toBeLessThan(6_000);
    expect(second!.next! - first!.next!).toBeGreaterThan(1_500);
    expect(last).toEqual({ attempts: 3, next: null });
    expect(mock.received(sendPath, 'POST')).toHaveLength(3);
    const conversation = await conversationSatisfies(t, admin, conversationId, (c) => {
      expect(c.messages.find((m) => m.id === messageId)?.deliveryStatus).toBe('FAILED');
    });
    const failed = conversation.messages.find((m) => m.id === messageId)!;
    expect(failed.deliveryError).toEqual(expect.stringContaining(platformError));
  }

  it('Messenger: the Send API answering an OAuthException ends FAILED with its message after the backoff', async () => {
    const pageId = id('page');
    const appSecret = id('app-secret-');
    const channelId = await connect({ type: 'MESSENGER', pageId, pageAccessToken: 'page-token', appSecret });
    const psid = id('psid');
    const payload = {
      object: 'page',
      entry: [
        {
          id: pageId,
          time: Date.now(),
          messaging: [
            {
              sender: { id: psid },
              recipient: { id: pageId },
              timestamp: Date.now(),
              message: { mid: id('m_'), text: 'Hi' },
            },
          ],
        },
      ],
    };
    const raw = JSON.stringify(payload);
    const ack = await t.http
      .post('/webhooks/meta')
      .set('content-type', 'application/json')
      .set('x-hub-signature-256', hexSignature(appSecret, raw))
      .send(raw)
      .expect(200);
    const conversationId = await conversationOf(channelId, ack.body.eventIds[0]);
    mock.reset();
    mock.fail('/me/messages', 10, 400, {
      error: {
        message: "(#551) This person isn't available right now.",
        type: 'OAuthException',
        code: 551,
        error_subcode: 1545041,
        fbtrace_id: 'AbCdEf',
      },
    });
    const messageId = await reply(conversationId, 'Are you there?');
    await expectFailedWithBackoff(conversationId, messageId, '/me/messages', "This person isn't available right now.");
  }, 60_000);

  it('WhatsApp: the Cloud API refusing the recipient ends FAILED with its message after the backoff', async () => {
    const phoneNumberId = id('phone');
    const appSecret = id('wa-secret-');
    const channelId = await connect({
      type: 'WHATSAPP',
      phoneNumberId,
      wabaId: 'waba-x',
      accessToken: 'wa-token',
      appSecret,
    });
    const waId = `1555${Math.floor(1e6 + Math.random() * 8e6)}`;
    const payload = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'waba-x',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550100', phone_number_id: phoneNumberId },
                contacts: [{ profile: { name: 'Wanda' }, wa_id: waId }],
                messages: [
                  {
                    from: waId,
                    id: `wamid.${id('IN')}`,
                    timestamp: '1763800000',
                    type: 'text',
                    text: { body: 'Hola' },
                  },
                ],
              },
            },
          ],
        },
      ],
    };
    const raw = JSON.stringify(payload);
    const ack = await t.http
      .post('/webhooks/meta')
      .set('content-type', 'application/json')
      .set('x-hub-signature-256', hexSignature(appSecret, raw))
      .send(raw)
      .expect(200);
    const conversationId = await conversationOf(channelId, ack.body.eventIds[0]);
    mock.reset();
    mock.fail(`/${phoneNumberId}/messages`, 10, 400, {
      error: {
        message: '(#131030) Recipient phone number not in allowed list',
        type: 'OAuthException',
        code: 131030,
        error_data: { messaging_product: 'whatsapp', details: 'Recipient phone number not in allowed list' },
        fbtrace_id: 'AbCdEf',
      },
    });
    const messageId = await reply(conversationId, '¿Sigue ahí?');
    await expectFailedWithBackoff(
      conversationId,
      messageId,
      `/${phoneNumberId}/messages`,
      'Recipient phone number not in allowed list',
    );
  }, 60_000);

  it('Telegram: sendMessage answering 403 (bot blocked) ends FAILED with its description after the backoff', async () => {
    const botToken = `${Math.floor(Math.random() * 1e9)}:AA${randomBytes(12).toString('hex')}`;
    const channelId = await connect({ type: 'TELEGRAM', botToken });
    const secret = (mock.received(`/telegram/bot${botToken}/setWebhook`, 'POST')[0]!.json as { secret_token: string })
      .secret_token;
    const chat = 100_000_000 + Math.floor(Math.random() * 800_000_000);
    const ack = await postTelegramText(t, secret, chat);
    const conversationId = await conversationOf(channelId, ack.body.eventId);
    mock.reset();
    mock.fail('/sendMessage', 10, 403, {
      ok: false,
      error_code: 403,
      description: 'Forbidden: bot was blocked by the user',
    });
    const messageId = await reply(conversationId, 'Hello?');
    await expectFailedWithBackoff(
      conversationId,
      messageId,
      `/telegram/bot${botToken}/sendMessage`,
      'Forbidden: bot was blocked by the user',
    );
  }, 60_000);

  describe('LINE', () => {
    let line: { channelId: string; destination: string; secret: string; token: string };
    beforeAll(async () => {
      const secret = randomBytes(16).toString('hex');
      const token = `line-token-${randomBytes(8).toString('hex')}`;
      const res = await t.http
        .post('/channels/connect')
        .set(admin.headers)
        .send({ type: 'LINE', channelSecret: secret, channelAccessToken: token })
        .expect(201);
      line = { channelId: res.body.id, destination: res.body.config.lineDestination, secret, token };
    });

    /** A signed text message from a new LINE user, with a fresh reply token; its conversation and token. */
    async function lineMessage(): Promise<{ conversationId: string; user: string; replyToken: string }> {
      const user = `U${randomBytes(16).toString('hex')}`;
      const replyToken = randomBytes(16).toString('hex');
      const body = {
        destination: line.destination,
        events: [
          {
            type: 'message',
            webhookEventId: `01H${randomBytes(10).toString('hex').toUpperCase()}`,
            deliveryContext: { isRedelivery: false },
            timestamp: Date.now(),
            source: { type: 'user', userId: user },
            replyToken,
            mode: 'active',
            message: { type: 'text', id: `${Date.now()}`, text: 'Is it in stock?' },
          },
        ],
      };
      const raw = JSON.stringify(body);
      const ack = await t.http
        .post('/webhooks/line')
        .set('content-type', 'application/json')
        .set('x-line-signature', base64Signature(line.secret, raw))
        .send(raw)
        .expect(200);
      return { conversationId: await conversationOf(line.channelId, ack.body.eventIds[0]), user, replyToken };
    }

    it('a reply token LINE refuses (400 Invalid reply token) is followed by a push, and the message ends SENT', async () => {
      const { conversationId, user, replyToken } = await lineMessage();
      mock.reset();
      mock.fail('/line/v2/bot/message/reply', 1, 400, { message: 'Invalid reply token' });
      const messageId = await reply(conversationId, 'Yes, 3 left.');
      expect((await watch(messageId)).status).toBe('SENT');
      expect(mock.received('/line/v2/bot/message/reply', 'POST').map((r) => r.json)).toEqual([
        { replyToken, messages: [{ type: 'text', text: 'Yes, 3 left.' }] },
      ]);
      const pushes = mock.received('/line/v2/bot/message/push', 'POST');
      expect(pushes.map((r) => r.json)).toEqual([{ to: user, messages: [{ type: 'text', text: 'Yes, 3 left.' }] }]);
      expect(pushes[0]!.headers.authorization).toBe(`Bearer ${line.token}`);
      await conversationSatisfies(t, admin, conversationId, (c) => {
        expect(c.messages.find((m) => m.id === messageId)).toMatchObject({
          deliveryStatus: 'SENT',
          deliveryError: null,
        });
      });
    }, 60_000);

    it('an expired reply token is never sent: the message goes straight to push and ends SENT', async () => {
      const { conversationId, user } = await lineMessage();
      // The token was kept with its expiry; let that expiry pass (LINE tokens live about a minute).
      const updated = await sql<{ n: number }>(
        t,
        `WITH u AS (UPDATE channel_reply_tokens SET expires_at = now() - interval '1 second'
                     WHERE channel_id = $1 AND recipient_id = $2 RETURNING 1)
         SELECT count(*)::int AS n FROM u`,
        [line.channelId, user],
      );
      expect(updated[0]!.n).toBe(1);
      mock.reset();
      const messageId = await reply(conversationId, 'Back in stock tomorrow.');
      expect((await watch(messageId)).status).toBe('SENT');
      expect(mock.received('/line/v2/bot/message/reply')).toHaveLength(0);
      expect(mock.received('/line/v2/bot/message/push', 'POST').map((r) => r.json)).toEqual([
        { to: user, messages: [{ type: 'text', text: 'Back in stock tomorrow.' }] },
      ]);
    }, 60_000);

    it("push answering 429 (monthly limit) ends FAILED with LINE's message after the backoff", async () => {
      const { conversationId } = await lineMessage();
      mock.reset();
      // The fresh token is used first and refused; every attempt then pushes and is refused.
      mock.fail('/line/v2/bot/message/reply', 1, 400, { message: 'Invalid reply token' });
      mock.fail('/line/v2/bot/message/push', 10, 429, { message: 'You have reached your monthly limit.' });
      const messageId = await reply(conversationId, 'Hello again');
      await expectFailedWithBackoff(
        conversationId,
        messageId,
        '/line/v2/bot/message/push',
        'You have reached your monthly limit.',
      );
      expect(mock.received('/line/v2/bot/message/reply')).toHaveLength(1);
    }, 60_000);
  });
});
