import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { type DomainEvent, EventBus } from 'src/core/events/event-bus';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';
import {
  conversationOfMessage,
  conversationSatisfies,
  eventReaches,
  hexSignature,
  inboxEnv,
  onlineAgent,
  sql,
} from './inbox-helpers';
import { MockPlatform } from './mock-platform';

const GLOBAL_SECRET = 'global-meta-app-secret';
const GLOBAL_VERIFY = 'global-verify-token';
const id = (prefix: string): string => `${prefix}${randomBytes(5).toString('hex')}`;
const NOW = 1763800000000;

/** Messenger/Instagram messaging items in Meta's webhook format. */
const text = (sender: string, recipient: string, mid: string, body: string) => ({
  sender: { id: sender },
  recipient: { id: recipient },
  timestamp: NOW,
  message: { mid, text: body },
});

describe('Meta webhook: Messenger, Instagram, WhatsApp', () => {
  let t: TestApp;
  let mock: MockPlatform;
  const sentEvents: DomainEvent<'message.sent'>[] = [];
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({
      env: inboxEnv(mock, { META_APP_SECRET: GLOBAL_SECRET, META_VERIFY_TOKEN: GLOBAL_VERIFY, META_APP_ID: 'app-123' }),
    });
    t.app.get(EventBus).subscribe('message.sent', (e) => {
      sentEvents.push(e);
    });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  function postMeta(payload: unknown, secret: string | null, header = 'x-hub-signature-256') {
    const raw = JSON.stringify(payload);
    const req = t.http.post('/webhooks/meta').set('content-type', 'application/json');
    if (secret) req.set(header, hexSignature(secret, raw));
    return req.send(raw);
  }

  async function eventCount(channelId: string): Promise<number> {
    const [row] = await sql<{ n: number }>(t, 'SELECT count(*)::int AS n FROM inbound_events WHERE channel_id = $1', [
      channelId,
    ]);
    return row!.n;
  }

  async function connect(admin: Session, body: Record<string, unknown>): Promise<string> {
    return (await t.http.post('/channels/connect').set(admin.headers).send(body).expect(201)).body.id;
  }

  it('answers the subscription handshake for META_VERIFY_TOKEN or a connection verifyToken', async () => {
    const admin = await signupWorkspace(t);
    const verifyToken = id('verify-');
    await connect(admin, { type: 'MESSENGER', pageId: id('page'), pageAccessToken: 'tok', verifyToken });
    for (const token of [GLOBAL_VERIFY, verifyToken]) {
      const res = await t.http
        .get('/webhooks/meta')
        .query({ 'hub.mode': 'subscribe', 'hub.verify_token': token, 'hub.challenge': '1158201444' })
        .expect(200);
      expect(res.text).toBe('1158201444');
      expect(res.headers['content-type']).toContain('text/plain');
    }
    await t.http
      .get('/webhooks/meta')
      .query({ 'hub.mode': 'subscribe', 'hub.verify_token': 'wrong', 'hub.challenge': '1' })
      .expect(403);
    await t.http
      .get('/webhooks/meta')
      .query({ 'hub.mode': 'unsubscribe', 'hub.verify_token': GLOBAL_VERIFY, 'hub.challenge': '1' })
      .expect(403);
  });

  it('Messenger: a signed batch stores one event per message, ignores echoes and receipts, and the reply goes to the Send API', async () => {
    const admin = await signupWorkspace(t);
    const agent = await onlineAgent(t, admin);
    const pageId = id('page');
    const appSecret = id('app-secret-');
    const channelId = await connect(admin, {
      type: 'MESSENGER',
      pageId,
      pageAccessToken: 'page-token-1',
      appSecret,
      name: 'Shop page',
    });
    const psid1 = id('psid');
    const psid2 = id('psid');
    const batch = {
      object: 'page',
      entry: [
        {
          id: pageId,
          time: NOW,
          messaging: [
            text(psid1, pageId, `m_${psid1}_1`, 'Do you ship to Lyon?'),
            {
              sender: { id: psid1 },
              recipient: { id: pageId },
              timestamp: NOW + 1,
              message: {
                mid: `m_${psid1}_2`,
                attachments: [{ type: 'image', payload: { url: 'https://scontent.example/1.jpg' } }],
              },
            },
            {
              sender: { id: pageId },
              recipient: { id: psid1 },
              timestamp: NOW,
              message: { mid: 'm_echo', is_echo: true, app_id: 1, text: 'echo' },
            },
            {
              sender: { id: psid1 },
              recipient: { id: pageId },
              timestamp: NOW,
              delivery: { mids: ['m_out'], watermark: NOW },
            },
            { sender: { id: psid1 }, recipient: { id: pageId }, timestamp: NOW, read: { watermark: NOW } },
          ],
        },
        {
          id: pageId,
          time: NOW,
          messaging: [
            {
              sender: { id: psid2 },
              recipient: { id: pageId },
              timestamp: NOW + 2,
              postback: { mid: `m_${psid2}_pb`, title: 'Get Started', payload: 'GET_STARTED' },
            },
          ],
        },
      ],
    };
    // Wrong, missing, or the global secret while the page has its own: 401 and nothing stored.
    expect((await postMeta(batch, 'wrong-secret').expect(401)).body.code).toBe('invalid_signature');
    await postMeta(batch, null).expect(401);
    await postMeta(batch, GLOBAL_SECRET).expect(401);
    expect(await eventCount(channelId)).toBe(0);

    const ack = await postMeta(batch, appSecret).expect(200);
    expect(ack.body.eventIds).toHaveLength(3);
    expect(ack.body.eventId).toBe(ack.body.eventIds[0]);
    const events = [];
    for (const eventId of ack.body.eventIds) events.push(await eventReaches(t, admin, channelId, eventId));
    expect(events.map((e) => e.outcome)).toEqual(['MESSAGE_STORED', 'MESSAGE_STORED', 'MESSAGE_STORED']);

    const first = await conversationOfMessage(t, events[0]!.messageId as string);
    expect(await conversationOfMessage(t, events[1]!.messageId as string)).toBe(first);
    const conversation = await conversationSatisfies(t, admin, first, () => undefined);
    expect(conversation).toMatchObject({
      channelType: 'MESSENGER',
      assigneeId: agent.userId,
      contact: { name: 'Mia Messenger' },
    });
    expect(conversation.messages.map((m) => [m.type, m.text, m.externalId])).toEqual([
      ['TEXT', 'Do you ship to Lyon?', `m_${psid1}_1`],
      ['IMAGE', null, `m_${psid1}_2`],
    ]);
    expect(conversation.messages[1]!.attachments).toEqual([{ type: 'image', url: 'https://scontent.example/1.jpg' }]);
    const profileCalls = mock.received(`/graph/v21.0/${psid1}`, 'GET');
    expect(profileCalls.length).toBeGreaterThanOrEqual(1);
    expect(profileCalls[0]!.headers.authorization).toBe('Bearer page-token-1');

    const postback = await conversationSatisfies(
      t,
      admin,
      await conversationOfMessage(t, events[2]!.messageId as string),
      () => undefined,
    );
    expect(postback.messages[0]).toMatchObject({
      type: 'POSTBACK',
      text: 'Get Started',
      postbackPayload: 'GET_STARTED',
    });

    // Meta redelivers the same POST: stored again as events, no new message.
    const again = await postMeta(batch, appSecret).expect(200);
    for (const eventId of again.body.eventIds)
      expect((await eventReaches(t, admin, channelId, eventId)).outcome).toBe('DUPLICATE');
    const [count] = await sql<{ n: number }>(t, 'SELECT count(*)::int AS n FROM messages WHERE channel_id = $1', [
      channelId,
    ]);
    expect(count!.n).toBe(3);

    // Receipts-only POSTs are acknowledged and store nothing.
    const receipts = { object: 'page', entry: [{ id: pageId, time: NOW, messaging: [batch.entry[0]!.messaging[3]] }] };
    expect((await postMeta(receipts, appSecret).expect(200)).body).toEqual({
      received: true,
      eventId: null,
      eventIds: [],
    });

    const reply = await t.http
      .post(`/conversations/${first}/messages`)
      .set(agent.headers)
      .send({ text: 'Yes, in 2 days.' })
      .expect(201);
    const [sent] = await eventually(async () => {
      const got = mock.received('/graph/v21.0/me/messages', 'POST');
      expect(got).toHaveLength(1);
      return got;
    });
    expect(sent!.headers.authorization).toBe('Bearer page-token-1');
    expect(sent!.json).toEqual({
      recipient: { id: psid1 },
      messaging_type: 'RESPONSE',
      message: { text: 'Yes, in 2 days.' },
    });
    await conversationSatisfies(t, admin, first, (c) => {
      expect(c.messages.find((m) => m.id === reply.body.id)).toMatchObject({
        deliveryStatus: 'SENT',
        externalId: expect.stringMatching(/^m_out_/),
      });
    });

    // The Send API answers the next reply with the id it gave the first one: that reply is SENT
    // once, without the id (the first one keeps it), with its own message.sent event.
    const reused = (
      await sql<{ external_id: string }>(t, 'SELECT external_id FROM messages WHERE id = $1', [reply.body.id])
    )[0]!.external_id;
    mock.fail('/me/messages', 1, 200, { recipient_id: psid1, message_id: reused });
    const second = await t.http
      .post(`/conversations/${first}/messages`)
      .set(agent.headers)
      .send({ text: 'Tracking follows.' })
      .expect(201);
    await conversationSatisfies(t, admin, first, (c) => {
      expect(c.messages.find((m) => m.id === second.body.id)).toMatchObject({
        deliveryStatus: 'SENT',
        externalId: null,
      });
      expect(c.messages.find((m) => m.id === reply.body.id)).toMatchObject({ externalId: reused });
    });
    expect(mock.received('/graph/v21.0/me/messages', 'POST')).toHaveLength(2);
    // Its own `message.sent` event, published once (the outbox row itself is deleted at relay when no
    // webhook takes it, so the bus's listeners are what sees it).
    expect(sentEvents.filter((e) => e.data.message?.id === second.body.id)).toHaveLength(1);
  });

  it('refuses POSTs naming only unknown accounts unless signed with META_APP_SECRET', async () => {
    const payload = {
      object: 'page',
      entry: [{ id: id('unknown'), time: NOW, messaging: [text('p', 'x', id('m'), 'hi')] }],
    };
    await postMeta(payload, 'anything').expect(401);
    expect((await postMeta(payload, GLOBAL_SECRET).expect(200)).body.eventIds).toEqual([]);
  });

  it('accepts batches over 3 MB', async () => {
    const admin = await signupWorkspace(t);
    const pageId = id('page');
    const channelId = await connect(admin, { type: 'MESSENGER', pageId, pageAccessToken: 'tok' });
    // 100 messages of 33 KB (the size comes from the text, not from the number of events to process).
    const long = 'x'.repeat(33_000);
    const messaging = Array.from({ length: 100 }, (_, i) =>
      text(`big-${i % 20}`, pageId, id(`m_big_${i}_`), `${i} ${long}`),
    );
    const payload = { object: 'page', entry: [{ id: pageId, time: NOW, messaging }] };
    expect(JSON.stringify(payload).length).toBeGreaterThan(3 * 1024 * 1024);
    const ack = await postMeta(payload, GLOBAL_SECRET).expect(200);
    expect(ack.body.eventIds).toHaveLength(100);
    expect(await eventCount(channelId)).toBe(100);
    await eventually(async () => {
      const [row] = await sql<{ n: number }>(
        t,
        `SELECT count(*)::int AS n FROM inbound_events WHERE channel_id = $1 AND status = 'PROCESSED'`,
        [channelId],
      );
      expect(row!.n).toBe(100);
    }, 90_000);
  }, 120_000);

  it('Instagram: echoes of our own sends are ignored; a connection without appSecret uses META_APP_SECRET', async () => {
    const admin = await signupWorkspace(t);
    const igId = id('ig');
    const channelId = await connect(admin, { type: 'INSTAGRAM', igAccountId: igId, accessToken: 'ig-token' });
    const igsid = id('igsid');
    const payload = {
      object: 'instagram',
      entry: [
        {
          time: NOW,
          id: igId,
          messaging: [
            text(igsid, igId, `ig_${igsid}_1`, 'Is the blue one in stock?'),
            {
              sender: { id: igId },
              recipient: { id: igsid },
              timestamp: NOW,
              message: { mid: 'ig_echo', text: 'our answer', is_echo: true },
            },
          ],
        },
      ],
    };
    await postMeta(payload, 'nope').expect(401);
    const ack = await postMeta(payload, GLOBAL_SECRET).expect(200);
    expect(ack.body.eventIds).toHaveLength(1);
    const event = await eventReaches(t, admin, channelId, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);
    const conversation = await conversationSatisfies(t, admin, conversationId, () => undefined);
    expect(conversation).toMatchObject({ channelType: 'INSTAGRAM', contact: { name: 'Ida Insta' } });
    expect(conversation.messages).toHaveLength(1);

    mock.reset();
    await t.http
      .post(`/conversations/${conversationId}/messages`)
      .set(admin.headers)
      .send({ text: 'It is!' })
      .expect(201);
    const [sent] = await eventually(async () => {
      const got = mock.received('/graph/v21.0/me/messages', 'POST');
      expect(got).toHaveLength(1);
      return got;
    });
    expect(sent!.headers.authorization).toBe('Bearer ig-token');
    expect(sent!.json).toEqual({ recipient: { id: igsid }, messaging_type: 'RESPONSE', message: { text: 'It is!' } });
  });

  it('WhatsApp: messages with the profile name, replies through the Cloud API, statuses update delivery', async () => {
    const admin = await signupWorkspace(t);
    const phoneNumberId = id('phone');
    const appSecret = id('wa-secret-');
    const channelId = await connect(admin, {
      type: 'WHATSAPP',
      phoneNumberId,
      wabaId: 'waba-1',
      accessToken: 'wa-token',
      appSecret,
    });
    await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'WHATSAPP', phoneNumberId, wabaId: 'waba-1', accessToken: 'other' })
      .expect(409);
    const waId = `1555${Math.floor(Math.random() * 1e7)}`;
    const metadata = { display_phone_number: '15550100', phone_number_id: phoneNumberId };
    const inbound = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'waba-1',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata,
                contacts: [{ profile: { name: 'Walt Whats' }, wa_id: waId }],
                messages: [
                  { from: waId, id: `wamid.IN${waId}1`, timestamp: '1763800000', type: 'text', text: { body: 'Hola' } },
                  {
                    from: waId,
                    id: `wamid.IN${waId}2`,
                    timestamp: '1763800001',
                    type: 'interactive',
                    interactive: { type: 'button_reply', button_reply: { id: 'YES', title: 'Yes please' } },
                  },
                ],
              },
            },
          ],
        },
      ],
    };
    await postMeta(inbound, GLOBAL_SECRET).expect(401);
    const ack = await postMeta(inbound, appSecret).expect(200);
    expect(ack.body.eventIds).toHaveLength(2);
    const events = [];
    for (const eventId of ack.body.eventIds) events.push(await eventReaches(t, admin, channelId, eventId));
    const conversationId = await conversationOfMessage(t, events[0]!.messageId as string);
    const conversation = await conversationSatisfies(t, admin, conversationId, () => undefined);
    expect(conversation.contact).toMatchObject({ name: 'Walt Whats' });
    expect(conversation.messages.map((m) => [m.type, m.text, m.postbackPayload])).toEqual([
      ['TEXT', 'Hola', null],
      ['POSTBACK', 'Yes please', 'YES'],
    ]);
    const contact = await t.http.get(`/contacts/${conversation.contactId}`).set(admin.headers).expect(200);
    expect(contact.body.phone).toBe(`+${waId}`);

    mock.reset();
    const reply = await t.http
      .post(`/conversations/${conversationId}/messages`)
      .set(admin.headers)
      .send({ text: '¡Hola!' })
      .expect(201);
    const [sent] = await eventually(async () => {
      const got = mock.received(`/graph/v21.0/${phoneNumberId}/messages`, 'POST');
      expect(got).toHaveLength(1);
      return got;
    });
    expect(sent!.headers.authorization).toBe('Bearer wa-token');
    expect(sent!.json).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: waId,
      type: 'text',
      text: { preview_url: false, body: '¡Hola!' },
    });
    const stored = await conversationSatisfies(t, admin, conversationId, (c) => {
      expect(c.messages.find((m) => m.id === reply.body.id)).toMatchObject({
        deliveryStatus: 'SENT',
        externalId: expect.stringMatching(/^wamid\.OUT/),
      });
    });
    const wamid = stored.messages.find((m) => m.id === reply.body.id)!.externalId as string;

    const status = (s: Record<string, unknown>) => ({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'waba-1',
          changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata, statuses: [s] } }],
        },
      ],
    });
    const delivered = await postMeta(
      status({ id: wamid, status: 'delivered', timestamp: '1763800100', recipient_id: waId }),
      appSecret,
    ).expect(200);
    expect((await eventReaches(t, admin, channelId, delivered.body.eventId)).outcome).toBe('DELIVERY_UPDATED');
    const failed = await postMeta(
      status({
        id: wamid,
        status: 'failed',
        timestamp: '1763800200',
        recipient_id: waId,
        errors: [{ code: 131047, title: 'Re-engagement message' }],
      }),
      appSecret,
    ).expect(200);
    await eventReaches(t, admin, channelId, failed.body.eventId);
    await conversationSatisfies(t, admin, conversationId, (c) => {
      expect(c.messages.find((m) => m.id === reply.body.id)).toMatchObject({
        deliveryStatus: 'FAILED',
        deliveryError: 'Re-engagement message',
      });
    });
    const unknown = await postMeta(
      status({ id: 'wamid.unknown', status: 'read', timestamp: '1', recipient_id: waId }),
      appSecret,
    ).expect(200);
    expect((await eventReaches(t, admin, channelId, unknown.body.eventId)).outcome).toBe('IGNORED');
  });

  it('WhatsApp embedded signup exchanges the code through the Graph API', async () => {
    const admin = await signupWorkspace(t);
    mock.reset();
    const res = await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'WHATSAPP', embeddedSignupCode: 'signup-code-1' })
      .expect(201);
    expect(res.body).toMatchObject({
      type: 'WHATSAPP',
      config: { phoneNumberId: 'phone-signup', wabaId: 'waba-signup' },
      inboundUrl: `${t.config.publicBaseUrl}/webhooks/meta`,
    });
    const exchange = mock.received('/graph/v21.0/oauth/access_token')[0]!;
    const query = new URL(exchange.url, mock.url).searchParams;
    expect(query.get('client_id')).toBe('app-123');
    expect(query.get('client_secret')).toBe(GLOBAL_SECRET);
    expect(query.get('code')).toBe('signup-code-1');
    expect(mock.received('/graph/v21.0/waba-signup/subscribed_apps', 'POST')[0]!.headers.authorization).toBe(
      'Bearer EAAG-exchanged-token',
    );
    await t.http.delete(`/channels/${res.body.id}`).set(admin.headers).expect(204);
    mock.fail('/oauth/access_token', 1, 400, { error: { message: 'Invalid verification code format.' } });
    const refused = await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'WHATSAPP', embeddedSignupCode: 'bad' })
      .expect(400);
    expect(refused.body.details[0].field).toBe('embeddedSignupCode');
    await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'WHATSAPP', phoneNumberId: 'p' })
      .expect(400);
  });
});
