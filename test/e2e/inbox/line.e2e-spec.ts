import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';
import {
  base64Signature,
  conversationOfMessage,
  conversationSatisfies,
  eventReaches,
  inboxEnv,
  sql,
} from './inbox-helpers';
import { MockPlatform } from './mock-platform';

const userId = (): string => `U${randomBytes(16).toString('hex')}`;

/** A LINE webhook event in the Messaging API's format. */
function lineEvent(user: string, extra: Record<string, unknown>) {
  return {
    webhookEventId: `01H${randomBytes(10).toString('hex').toUpperCase()}`,
    deliveryContext: { isRedelivery: false },
    timestamp: Date.now(),
    source: { type: 'user', userId: user },
    replyToken: randomBytes(16).toString('hex'),
    mode: 'active',
    ...extra,
  };
}

describe('LINE: bot info on connect, signed webhooks, reply then push', () => {
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

  async function connectLine(
    admin: Session,
  ): Promise<{ channelId: string; destination: string; secret: string; token: string }> {
    const secret = randomBytes(16).toString('hex');
    const token = `line-token-${randomBytes(8).toString('hex')}`;
    const res = await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'LINE', channelSecret: secret, channelAccessToken: token })
      .expect(201);
    expect(res.body).toMatchObject({
      type: 'LINE',
      name: 'Shop on LINE',
      config: { lineDestination: expect.stringMatching(/^Ubot/), lineBasicId: '@shop' },
    });
    return { channelId: res.body.id, destination: res.body.config.lineDestination, secret, token };
  }

  function postLine(body: unknown, signature: string | null, header = 'x-line-signature') {
    const raw = JSON.stringify(body);
    const req = t.http.post('/webhooks/line').set('content-type', 'application/json');
    if (signature !== null) req.set(header, signature);
    return req.send(raw);
  }
  const sign = (secret: string, body: unknown): string => base64Signature(secret, JSON.stringify(body));

  it('answers the empty verification request, checks both signature headers, ignores follows and group messages', async () => {
    const admin = await signupWorkspace(t);
    const line = await connectLine(admin);
    const verify = { destination: line.destination, events: [] };
    expect((await postLine(verify, sign(line.secret, verify)).expect(200)).body).toEqual({
      received: true,
      eventId: null,
      eventIds: [],
    });
    await postLine(verify, sign('wrong', verify)).expect(401);
    await postLine(verify, null).expect(401);
    const unknown = { destination: 'Uunknown', events: [] };
    await postLine(unknown, sign(line.secret, unknown)).expect(401);

    const user = userId();
    const body = {
      destination: line.destination,
      events: [
        lineEvent(user, { type: 'follow' }),
        lineEvent(user, {
          type: 'message',
          message: { type: 'text', id: `${Date.now()}1`, quoteToken: 'q', text: 'Hello, world' },
        }),
        {
          ...lineEvent(user, { type: 'message', message: { type: 'text', id: `${Date.now()}2`, text: 'in a group' } }),
          source: { type: 'group', groupId: 'C1', userId: user },
        },
      ],
    };
    await postLine(body, sign(line.secret, { ...body, events: [] })).expect(401);
    const [none] = await sql<{ n: number }>(t, 'SELECT count(*)::int AS n FROM inbound_events WHERE channel_id = $1', [
      line.channelId,
    ]);
    expect(none!.n).toBe(0);
    const ack = await postLine(body, sign(line.secret, body), 'x-chat-content-signature').expect(200);
    expect(ack.body.eventIds).toHaveLength(1);
    const event = await eventReaches(t, admin, line.channelId, ack.body.eventId);
    const conversation = await conversationSatisfies(
      t,
      admin,
      await conversationOfMessage(t, event.messageId as string),
      () => undefined,
    );
    expect(conversation).toMatchObject({ channelType: 'LINE', contact: { name: 'Lin Line' } });
    expect(conversation.messages.map((m) => m.text)).toEqual(['Hello, world']);
    expect(mock.received(`/line/v2/bot/profile/${user}`)[0]!.headers.authorization).toBe(`Bearer ${line.token}`);
  });

  it('replies with the fresh reply token once, then pushes; postbacks and images are stored', async () => {
    const admin = await signupWorkspace(t);
    const line = await connectLine(admin);
    const user = userId();
    const message = lineEvent(user, {
      type: 'message',
      message: { type: 'text', id: `${Date.now()}3`, text: 'Can I order?' },
    });
    const body = { destination: line.destination, events: [message] };
    const ack = await postLine(body, sign(line.secret, body)).expect(200);
    const event = await eventReaches(t, admin, line.channelId, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);
    mock.reset();
    await t.http
      .post(`/conversations/${conversationId}/messages`)
      .set(admin.headers)
      .send({ text: 'Of course!' })
      .expect(201);
    await eventually(async () => expect(mock.received('/line/v2/bot/message/reply')).toHaveLength(1));
    await t.http
      .post(`/conversations/${conversationId}/messages`)
      .set(admin.headers)
      .send({ text: 'What would you like?' })
      .expect(201);
    await eventually(async () => expect(mock.received('/line/v2/bot/message/push')).toHaveLength(1));
    const reply = mock.received('/line/v2/bot/message/reply')[0]!;
    expect(reply.headers.authorization).toBe(`Bearer ${line.token}`);
    expect(reply.json).toEqual({ replyToken: message.replyToken, messages: [{ type: 'text', text: 'Of course!' }] });
    expect(mock.received('/line/v2/bot/message/push')[0]!.json).toEqual({
      to: user,
      messages: [{ type: 'text', text: 'What would you like?' }],
    });

    const imageId = `${Date.now()}4`;
    const more = {
      destination: line.destination,
      events: [
        lineEvent(user, { type: 'postback', postback: { data: 'action=buy&item=111' } }),
        lineEvent(user, {
          type: 'message',
          message: { type: 'image', id: imageId, contentProvider: { type: 'line' } },
        }),
      ],
    };
    const moreAck = await postLine(more, sign(line.secret, more)).expect(200);
    for (const id of moreAck.body.eventIds) await eventReaches(t, admin, line.channelId, id);
    const all = await conversationSatisfies(t, admin, conversationId, (c) => expect(c.messages).toHaveLength(5));
    expect(all.messages.slice(3).map((m) => [m.type, m.postbackPayload, m.attachments])).toEqual([
      ['POSTBACK', 'action=buy&item=111', []],
      ['IMAGE', null, [{ type: 'image', url: `line:content/${imageId}` }]],
    ]);

    // A reply token LINE refuses (expired, used) falls back to push.
    mock.reset();
    mock.fail('/line/v2/bot/message/reply', 1, 400, { message: 'Invalid reply token' });
    await t.http
      .post(`/conversations/${conversationId}/messages`)
      .set(admin.headers)
      .send({ text: 'Sent!' })
      .expect(201);
    await eventually(async () => expect(mock.received('/line/v2/bot/message/push')).toHaveLength(1));
    expect(mock.received('/line/v2/bot/message/reply')).toHaveLength(1);
  });
});
