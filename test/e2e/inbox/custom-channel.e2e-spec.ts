import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import {
  connectCustom,
  conversationOfMessage,
  conversationSatisfies,
  eventReaches,
  hexSignature,
  inboxEnv,
  onlineAgent,
  postCustom,
  sql,
} from './inbox-helpers';
import { MockPlatform } from './mock-platform';

describe('Custom Channel: connect, signed inbound, pipeline, signed replies', () => {
  let t: TestApp;
  let mock: MockPlatform;
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock) });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  async function enterprise(): Promise<Session> {
    const admin = await signupWorkspace(t, 'Enterprise');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
    return admin;
  }

  it('needs the ENTERPRISE plan; secrets are encrypted and never returned', async () => {
    const starter = await signupWorkspace(t, 'Starter');
    const refused = await t.http
      .post('/channels/connect')
      .set(starter.headers)
      .send({
        type: 'CUSTOM',
        displayName: 'App',
        inboundSecret: 'in-secret-123456',
        outboundUrl: `${mock.url}/custom/outbound`,
      })
      .expect(403);
    expect(refused.body.code).toBe('plan_required');

    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    expect(channel.body).toEqual({
      id: expect.any(String),
      type: 'CUSTOM',
      name: 'Shop app',
      status: 'ACTIVE',
      config: { outboundUrl: `${mock.url}/custom/outbound` },
      inboundUrl: `${t.config.publicBaseUrl}/custom-channel/${channel.id}/inbound`,
      hasOutboundSecret: true,
      createdAt: expect.any(String),
      disconnectedAt: null,
    });
    const list = await t.http.get('/channels').set(admin.headers).expect(200);
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([channel.id]);
    const everything = JSON.stringify([channel.body, list.body]);
    expect(everything).not.toContain(channel.inboundSecret);
    expect(everything).not.toContain(channel.outboundSecret!);
    const [row] = await sql<{ secrets: string }>(t, 'SELECT secrets FROM channel_connections WHERE id = $1', [
      channel.id,
    ]);
    expect(row!.secrets).toMatch(/^v1\./);
    expect(row!.secrets).not.toContain(channel.inboundSecret);

    const bad = await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'CUSTOM', displayName: 'X', outboundUrl: 'ftp://x' })
      .expect(400);
    expect(bad.body.code).toBe('validation_failed');
    await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'CUSTOM', displayName: 'X', inboundSecret: 's', outboundUrl: 'ftp://example.com/x' })
      .expect(400);
    await t.http.post('/channels/connect').set(admin.headers).send({ type: 'FAX' }).expect(400);
    const agent = await onlineAgent(t, admin);
    await t.http.get('/channels').set(agent.headers).expect(403);
  });

  it('answers 401 invalid_signature for missing or wrong signatures and stores nothing; 404 and 403 before that; 400 after', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const message = { senderId: 'c-1', text: 'hi' };
    const missing = await postCustom(t, channel, message, null).expect(401);
    expect(missing.body).toMatchObject({ statusCode: 401, code: 'invalid_signature' });
    await postCustom(t, channel, message, hexSignature('another-secret', JSON.stringify(message))).expect(401);
    await postCustom(
      t,
      channel,
      message,
      hexSignature(channel.inboundSecret, JSON.stringify({ ...message, text: 'other' })),
    ).expect(401);
    await postCustom(t, channel, message, 'sha256=nothex').expect(401);
    await postCustom(
      t,
      channel,
      message,
      hexSignature(channel.inboundSecret, JSON.stringify(message)).replace('sha256=', ''),
    ).expect(401);
    const [count] = await sql<{ n: number }>(t, 'SELECT count(*)::int AS n FROM inbound_events WHERE channel_id = $1', [
      channel.id,
    ]);
    expect(count!.n).toBe(0);

    await postCustom(t, { ...channel, id: '7b0c8a4e-2f7e-4a53-9a53-0d3c7a1e9c11' }, message).expect(404);
    await postCustom(t, { ...channel, id: 'not-a-uuid' }, message).expect(404);

    // Signature first, then the body.
    const invalid = await postCustom(t, channel, { text: 'no sender' }).expect(400);
    expect(invalid.body.code).toBe('validation_failed');
    expect(invalid.body.details[0].field).toBe('senderId');
    await postCustom(t, channel, { senderId: 'c-1' }).expect(400);
    await postCustom(t, channel, { senderId: 'c-1', text: 'x', unknown: 1 }).expect(400);
    const upper = hexSignature(channel.inboundSecret, JSON.stringify(message))
      .toUpperCase()
      .replace('SHA256=', 'sha256=');
    await postCustom(t, channel, message, upper).expect(200);

    await setPlan(t, admin.workspaceId, 'PRO');
    const plan = await postCustom(t, channel, message).expect(403);
    expect(plan.body.code).toBe('plan_required');
  });

  it('answers an ack with the same security headers, request id and metrics as any answer (DESIGN §15)', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const message = { senderId: 'c-h', text: 'headers', messageId: 'm-h' };
    const raw = JSON.stringify(message);
    const ack = await t.http
      .post(`/custom-channel/${channel.id}/inbound`)
      .set('content-type', 'application/json')
      .set('x-service-signature', hexSignature(channel.inboundSecret, raw))
      .set('x-request-id', 'ack-req-1')
      .send(raw)
      .expect(200);
    expect(ack.body).toEqual({ received: true, eventId: expect.any(String), eventIds: [ack.body.eventId] });
    expect(ack.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(ack.headers['x-request-id']).toBe('ack-req-1');
    // The controller's answers (here a 401) carry the same security headers.
    const refused = await postCustom(t, channel, message, 'sha256=00').expect(401);
    for (const header of [
      'x-content-type-options',
      'x-frame-options',
      'strict-transport-security',
      'referrer-policy',
      'content-security-policy',
      'cross-origin-opener-policy',
    ]) {
      expect({ header, value: ack.headers[header] }).toEqual({ header, value: refused.headers[header] });
      expect(ack.headers[header]).toEqual(expect.any(String));
    }
    expect(ack.headers['x-powered-by']).toBeUndefined();
    const metrics = await t.http.get('/metrics').expect(200);
    expect(metrics.text).toMatch(
      /sis_http_request_duration_seconds_count\{[^}]*route="\/custom-channel\/:id\/inbound"[^}]*status="200"[^}]*\} [1-9]/,
    );
  });

  it('turns a signed message into a contact, an assigned conversation and a stored message; the reply reaches the outbound URL signed', async () => {
    const admin = await enterprise();
    const agent = await onlineAgent(t, admin);
    const channel = await connectCustom(t, admin, mock, { path: '/custom/reply-signed' });
    const ack = await postCustom(t, channel, {
      senderId: 'cust-1',
      senderName: 'Ada Lovelace',
      text: 'Hello there',
      timestamp: 1763800000,
    }).expect(200);
    expect(ack.body).toEqual({ received: true, eventId: expect.any(String), eventIds: [ack.body.eventId] });

    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    expect(event).toMatchObject({
      outcome: 'MESSAGE_STORED',
      attempts: 1,
      senderId: 'cust-1',
      error: null,
      payload: { senderId: 'cust-1' },
    });
    const conversationId = await conversationOfMessage(t, event.messageId as string);

    const conversation = await conversationSatisfies(t, admin, conversationId, () => undefined);
    expect(conversation).toMatchObject({
      id: conversationId,
      channelId: channel.id,
      channelType: 'CUSTOM',
      status: 'OPEN',
      priority: 'MEDIUM',
      assigneeId: agent.userId,
      contact: { id: conversation.contactId, name: 'Ada Lovelace' },
      lastMessagePreview: 'Hello there',
      firstResponseAt: null,
      tags: [],
      messagesBefore: null,
    });
    expect(conversation.messages).toEqual([
      expect.objectContaining({
        direction: 'INBOUND',
        senderType: 'CONTACT',
        type: 'TEXT',
        text: 'Hello there',
        deliveryStatus: 'RECEIVED',
        attachments: [],
      }),
    ]);
    const contact = await t.http.get(`/contacts/${conversation.contactId}`).set(admin.headers).expect(200);
    expect(contact.body).toMatchObject({
      name: 'Ada Lovelace',
      identities: [{ channelType: 'CUSTOM', channelId: channel.id, externalId: 'cust-1' }],
    });

    const reply = await t.http
      .post(`/conversations/${conversationId}/messages`)
      .set(agent.headers)
      .send({ text: 'Hi Ada!' })
      .expect(201);
    expect(reply.body).toMatchObject({
      direction: 'OUTBOUND',
      senderType: 'AGENT',
      senderId: agent.userId,
      type: 'TEXT',
      deliveryStatus: 'PENDING',
    });
    const [sent] = await eventually(async () => {
      const got = mock.received('/custom/reply-signed');
      expect(got).toHaveLength(1);
      return got;
    });
    const body = JSON.parse(sent!.raw);
    expect(Object.keys(body).sort()).toEqual(['message', 'recipientId', 'sentAt']);
    expect(body).toEqual({
      recipientId: 'cust-1',
      message: { type: 'TEXT', text: 'Hi Ada!' },
      sentAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(sent!.headers['x-service-signature']).toBe(hexSignature(channel.outboundSecret!, sent!.raw));
    expect(sent!.headers['content-type']).toContain('application/json');

    const after = await conversationSatisfies(t, admin, conversationId, (c) => {
      expect(c.messages[1]).toMatchObject({ id: reply.body.id, deliveryStatus: 'SENT', deliveryError: null });
    });
    expect(after.firstResponseAt).toEqual(expect.any(String));
    expect(after.lastMessagePreview).toBe('Hi Ada!');

    // A second message of the same sender joins the same open conversation.
    const second = await postCustom(t, channel, { senderId: 'cust-1', text: 'One more thing' }).expect(200);
    const secondEvent = await eventReaches(t, admin, channel.id, second.body.eventId);
    expect(await conversationOfMessage(t, secondEvent.messageId as string)).toBe(conversationId);
  });

  it('sends no signature header without an outbound secret, images and buttons in their shapes', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock, { outboundSecret: null, path: '/custom/unsigned' });
    expect(channel.body.hasOutboundSecret).toBe(false);
    const ack = await postCustom(t, channel, { senderId: 'u-2', text: 'photo please' }).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);
    await t.http
      .post(`/conversations/${conversationId}/messages`)
      .set(admin.headers)
      .send({ text: 'Here it is', attachments: [{ type: 'image', url: 'https://cdn.example.com/p.jpg' }] })
      .expect(201);
    await t.http
      .post(`/conversations/${conversationId}/messages`)
      .set(admin.headers)
      .send({
        text: 'Pick one',
        buttons: [
          { title: 'Red', payload: 'RED' },
          { title: 'Blue', payload: 'BLUE' },
        ],
      })
      .expect(201);
    await t.http.post(`/conversations/${conversationId}/messages`).set(admin.headers).send({}).expect(400);
    await t.http
      .post(`/conversations/${conversationId}/messages`)
      .set(admin.headers)
      .send({ buttons: [{ title: 'A', payload: 'A' }] })
      .expect(400);
    await t.http
      .post(`/conversations/${conversationId}/messages`)
      .set(admin.headers)
      .send({ attachments: [{ type: 'file', url: 'https://x.example/a.pdf' }] })
      .expect(400);
    const got = await eventually(async () => {
      const r = mock.received('/custom/unsigned');
      expect(r).toHaveLength(2);
      return r;
    });
    for (const r of got) expect(r.headers['x-service-signature']).toBeUndefined();
    const messages = got.map((r) => (JSON.parse(r.raw) as { message: unknown }).message);
    expect(messages).toEqual(
      expect.arrayContaining([
        { type: 'IMAGE', url: 'https://cdn.example.com/p.jpg', caption: 'Here it is' },
        {
          type: 'BUTTONS',
          text: 'Pick one',
          buttons: [
            { title: 'Red', payload: 'RED' },
            { title: 'Blue', payload: 'BLUE' },
          ],
        },
      ]),
    );
  });

  it('stores attachments and postbacks with their message types; a redelivered messageId creates nothing', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const bodies = [
      { senderId: 's-9', attachments: [{ type: 'image', url: 'https://x.example/1.jpg' }], messageId: 'm-1' },
      { senderId: 's-9', attachments: [{ type: 'file', url: 'https://x.example/1.pdf' }], messageId: 'm-2' },
      {
        senderId: 's-9',
        text: 'with photo',
        attachments: [{ type: 'image', url: 'https://x.example/2.jpg' }],
        messageId: 'm-3',
      },
      { senderId: 's-9', postbackPayload: 'BUY_NOW', text: 'Buy now', messageId: 'm-4' },
    ];
    const ids: string[] = [];
    for (const body of bodies) ids.push((await postCustom(t, channel, body).expect(200)).body.eventId);
    const again = await postCustom(t, channel, bodies[0]!).expect(200);
    for (const id of ids) await eventReaches(t, admin, channel.id, id);
    const duplicate = await eventReaches(t, admin, channel.id, again.body.eventId);
    expect(duplicate).toMatchObject({ outcome: 'DUPLICATE', messageId: null });
    const rows = await sql<{
      type: string;
      text: string | null;
      postback_payload: string | null;
      attachments: unknown[];
    }>(t, 'SELECT type, text, postback_payload, attachments FROM messages WHERE channel_id = $1 ORDER BY seq', [
      channel.id,
    ]);
    expect(rows).toEqual([
      {
        type: 'IMAGE',
        text: null,
        postback_payload: null,
        attachments: [{ type: 'image', url: 'https://x.example/1.jpg' }],
      },
      {
        type: 'FILE',
        text: null,
        postback_payload: null,
        attachments: [{ type: 'file', url: 'https://x.example/1.pdf' }],
      },
      {
        type: 'TEXT',
        text: 'with photo',
        postback_payload: null,
        attachments: [{ type: 'image', url: 'https://x.example/2.jpg' }],
      },
      { type: 'POSTBACK', text: 'Buy now', postback_payload: 'BUY_NOW', attachments: [] },
    ]);
  });

  it("stores one sender's burst in arrival order in one conversation; other senders get their own", async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const acks: string[] = [];
    for (let i = 1; i <= 20; i++) {
      acks.push(
        (await postCustom(t, channel, { senderId: i % 2 ? 'odd' : 'even', text: `#${i}` }).expect(200)).body.eventId,
      );
    }
    for (const id of acks) await eventReaches(t, admin, channel.id, id);
    const rows = await sql<{ conversation_id: string; text: string }>(
      t,
      'SELECT conversation_id, text FROM messages WHERE channel_id = $1 ORDER BY seq',
      [channel.id],
    );
    const byConversation = new Map<string, string[]>();
    for (const row of rows)
      byConversation.set(row.conversation_id, [...(byConversation.get(row.conversation_id) ?? []), row.text]);
    expect([...byConversation.values()].sort()).toEqual([
      ['#1', '#3', '#5', '#7', '#9', '#11', '#13', '#15', '#17', '#19'],
      ['#2', '#4', '#6', '#8', '#10', '#12', '#14', '#16', '#18', '#20'],
    ]);
    const [one] = byConversation.keys();
    const detail = await t.http.get(`/conversations/${one}`).set(admin.headers).expect(200);
    const texts = detail.body.messages.map((m: { text: string }) => m.text);
    expect(texts).toEqual(byConversation.get(one!));
  });

  it('retries a failing outbound URL with backoff and ends FAILED with the error; a later success is SENT', async () => {
    const admin = await enterprise();
    const failing = await connectCustom(t, admin, mock, { path: '/custom/always-503' });
    const flaky = await connectCustom(t, admin, mock, { path: '/custom/flaky' });
    mock.fail('/custom/always-503', 100, 503, { message: 'maintenance' });
    mock.fail('/custom/flaky', 2, 500);
    const conversations: string[] = [];
    for (const channel of [failing, flaky]) {
      const ack = await postCustom(t, channel, { senderId: 'r-1', text: 'ping' }).expect(200);
      const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
      conversations.push(await conversationOfMessage(t, event.messageId as string));
    }
    const [failed, later] = await Promise.all(
      conversations.map(
        async (id) =>
          (await t.http.post(`/conversations/${id}/messages`).set(admin.headers).send({ text: 'pong' }).expect(201))
            .body.id as string,
      ),
    );
    await conversationSatisfies(t, admin, conversations[0]!, (c) => {
      const m = c.messages.find((x) => x.id === failed)!;
      expect(m.deliveryStatus).toBe('FAILED');
      expect(m.deliveryError).toBe('HTTP 503: maintenance');
    });
    expect(mock.received('/custom/always-503')).toHaveLength(6);
    await conversationSatisfies(t, admin, conversations[1]!, (c) => {
      expect(c.messages.find((x) => x.id === later)!.deliveryStatus).toBe('SENT');
    });
    expect(mock.received('/custom/flaky')).toHaveLength(3);
    const [attempts] = await sql<{ delivery_attempts: number }>(
      t,
      'SELECT delivery_attempts FROM messages WHERE id = $1',
      [failed],
    );
    expect(attempts!.delivery_attempts).toBe(6);
  });

  it('disconnecting erases the secrets, keeps the conversations and refuses later inbound', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const ack = await postCustom(t, channel, { senderId: 'd-1', text: 'bye' }).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);
    await t.http.delete(`/channels/${channel.id}`).set(admin.headers).expect(204);
    await t.http.delete(`/channels/${channel.id}`).set(admin.headers).expect(404);
    const [row] = await sql<{ secrets: string | null; status: string }>(
      t,
      'SELECT secrets, status FROM channel_connections WHERE id = $1',
      [channel.id],
    );
    expect(row).toEqual({ secrets: null, status: 'DISCONNECTED' });
    await postCustom(t, channel, { senderId: 'd-1', text: 'again' }).expect(404);
    await t.http.get(`/conversations/${conversationId}`).set(admin.headers).expect(200);
    const list = await t.http.get('/channels?status=DISCONNECTED').set(admin.headers).expect(200);
    expect(list.body.data[0]).toMatchObject({
      id: channel.id,
      status: 'DISCONNECTED',
      disconnectedAt: expect.any(String),
    });
  });

  it('keeps workspaces apart: channels, events and conversations of A are 404 from B', async () => {
    const a = await enterprise();
    const b = await enterprise();
    const channel = await connectCustom(t, a, mock);
    const ack = await postCustom(t, channel, { senderId: 'x-1', text: 'secret' }).expect(200);
    const event = await eventReaches(t, a, channel.id, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);

    const listB = await t.http.get('/channels').set(b.headers).expect(200);
    expect(listB.body.data).toEqual([]);
    await t.http.get(`/channels/${channel.id}`).set(b.headers).expect(404);
    await t.http.get(`/channels/${channel.id}/events`).set(b.headers).expect(404);
    await t.http.post(`/channels/${channel.id}/events/${ack.body.eventId}/retry`).set(b.headers).expect(404);
    await t.http.delete(`/channels/${channel.id}`).set(b.headers).expect(404);
    await t.http.get(`/conversations/${conversationId}`).set(b.headers).expect(404);
    await t.http.post(`/conversations/${conversationId}/messages`).set(b.headers).send({ text: 'hijack' }).expect(404);
    await t.http.get(`/conversations/${conversationId}`).set(a.headers).expect(200);
  });
});
