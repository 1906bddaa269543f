import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';
import {
  conversationOfMessage,
  conversationSatisfies,
  eventReaches,
  inboxEnv,
  onlineAgent,
  sql,
} from './inbox-helpers';
import { MockPlatform } from './mock-platform';

const chatId = (): number => 100_000_000 + Math.floor(Math.random() * 800_000_000);
const from = (id: number) => ({
  id,
  is_bot: false,
  first_name: 'Tom',
  last_name: 'Gram',
  username: 'tomg',
  language_code: 'en',
});
const privateChat = (id: number) => ({ id, first_name: 'Tom', last_name: 'Gram', username: 'tomg', type: 'private' });
let updateId = 900_000;

/** A Telegram `Update` with a message in a private chat. */
function messageUpdate(chat: number, messageId: number, extra: Record<string, unknown>) {
  return {
    update_id: ++updateId,
    message: { message_id: messageId, from: from(chat), chat: privateChat(chat), date: 1763800000, ...extra },
  };
}

describe('Telegram: connect with getMe + setWebhook, secret-token webhook, sendMessage/sendPhoto replies', () => {
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

  async function connectBot(admin: Session): Promise<{ channelId: string; secret: string; botToken: string }> {
    const botToken = `${Math.floor(Math.random() * 1e9)}:AA${randomBytes(12).toString('hex')}`;
    const res = await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'TELEGRAM', botToken })
      .expect(201);
    expect(res.body).toMatchObject({
      type: 'TELEGRAM',
      name: expect.stringMatching(/^@shop_\d+_bot$/),
      config: { botId: expect.any(String), botUsername: expect.any(String) },
      inboundUrl: `${t.config.publicBaseUrl}/webhooks/telegram`,
    });
    expect(JSON.stringify(res.body)).not.toContain(botToken);
    const setWebhook = mock.received(`/telegram/bot${botToken}/setWebhook`, 'POST');
    expect(setWebhook).toHaveLength(1);
    const body = setWebhook[0]!.json as { url: string; secret_token: string; allowed_updates: string[] };
    expect(body.url).toBe(`${t.config.publicBaseUrl}/webhooks/telegram`);
    expect(body.secret_token).toMatch(/^[A-Za-z0-9_-]{32,256}$/);
    expect(body.allowed_updates).toEqual(['message', 'callback_query']);
    expect(mock.received(`/telegram/bot${botToken}/getMe`)).toHaveLength(1);
    return { channelId: res.body.id, secret: body.secret_token, botToken };
  }

  function postUpdate(update: object, secret: string | null, header = 'x-telegram-bot-api-secret-token') {
    const req = t.http.post('/webhooks/telegram');
    if (secret !== null) req.set(header, secret);
    return req.send(update);
  }

  it('refuses a token Telegram rejects and a bot connected twice', async () => {
    const admin = await signupWorkspace(t);
    const refused = await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'TELEGRAM', botToken: 'bad-token' })
      .expect(400);
    expect(refused.body.details[0].field).toBe('botToken');
    mock.fail('/setWebhook', 1, 400, {
      ok: false,
      error_code: 400,
      description: 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook',
    });
    const https = await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'TELEGRAM', botToken: '1:AAretry' })
      .expect(400);
    expect(https.body.message).toContain('An HTTPS URL must be provided');
    expect((await t.http.get('/channels').set(admin.headers).expect(200)).body.data).toEqual([]);
    const { botToken } = await connectBot(admin);
    const other = await signupWorkspace(t);
    mock.reset();
    await t.http.post('/channels/connect').set(other.headers).send({ type: 'TELEGRAM', botToken }).expect(409);
    expect(mock.received('/setWebhook')).toHaveLength(0);
  });

  it('accepts either secret-token header, refuses wrong or missing ones, and ignores non-private or edited updates', async () => {
    const admin = await signupWorkspace(t);
    const agent = await onlineAgent(t, admin);
    const { channelId, secret } = await connectBot(admin);
    const chat = chatId();
    const update = messageUpdate(chat, 1365, { text: 'Hi bot' });
    expect((await postUpdate(update, 'wrong-secret').expect(401)).body.code).toBe('invalid_signature');
    await postUpdate(update, null).expect(401);
    const [none] = await sql<{ n: number }>(t, 'SELECT count(*)::int AS n FROM inbound_events WHERE channel_id = $1', [
      channelId,
    ]);
    expect(none!.n).toBe(0);

    const ack = await postUpdate(update, secret).expect(200);
    const event = await eventReaches(t, admin, channelId, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);
    const conversation = await conversationSatisfies(t, admin, conversationId, () => undefined);
    expect(conversation).toMatchObject({
      channelType: 'TELEGRAM',
      assigneeId: agent.userId,
      contact: { name: 'Tom Gram' },
    });
    expect(conversation.messages[0]).toMatchObject({ type: 'TEXT', text: 'Hi bot', externalId: `${chat}:1365` });

    const photo = messageUpdate(chat, 1366, {
      caption: 'Is this one available?',
      photo: [
        { file_id: 'AgAD-small', file_unique_id: 'a', width: 90, height: 90 },
        { file_id: 'AgAD-big', file_unique_id: 'b', width: 1280, height: 1280 },
      ],
    });
    const photoAck = await postUpdate(photo, secret, 'x-messenger-bot-api-secret-token').expect(200);
    await eventReaches(t, admin, channelId, photoAck.body.eventId);
    const redelivered = await postUpdate(photo, secret).expect(200);
    expect((await eventReaches(t, admin, channelId, redelivered.body.eventId)).outcome).toBe('DUPLICATE');

    const ignored = [
      { update_id: ++updateId, edited_message: { ...update.message, text: 'edited' } },
      {
        update_id: ++updateId,
        message: { ...update.message, message_id: 2000, chat: { id: -100123, title: 'Group', type: 'group' } },
      },
      { update_id: ++updateId, my_chat_member: { chat: privateChat(chat), from: from(chat), date: 1 } },
    ];
    for (const u of ignored)
      expect((await postUpdate(u, secret).expect(200)).body).toEqual({ received: true, eventId: null, eventIds: [] });

    const callback = {
      update_id: ++updateId,
      callback_query: {
        id: `cb${randomBytes(4).toString('hex')}`,
        from: from(chat),
        chat_instance: '-1',
        data: 'SIZE_M',
        message: {
          message_id: 1367,
          chat: privateChat(chat),
          date: 1763800001,
          text: 'Which size?',
          reply_markup: {
            inline_keyboard: [
              [
                { text: 'Medium', callback_data: 'SIZE_M' },
                { text: 'Large', callback_data: 'SIZE_L' },
              ],
            ],
          },
        },
      },
    };
    const cbAck = await postUpdate(callback, secret).expect(200);
    await eventReaches(t, admin, channelId, cbAck.body.eventId);
    const all = await conversationSatisfies(t, admin, conversationId, (c) => expect(c.messages).toHaveLength(3));
    expect(all.messages.map((m) => [m.type, m.text, m.postbackPayload])).toEqual([
      ['TEXT', 'Hi bot', null],
      ['TEXT', 'Is this one available?', null],
      ['POSTBACK', 'Medium', 'SIZE_M'],
    ]);
    expect(all.messages[1]!.attachments).toEqual([{ type: 'image', url: 'telegram:file/AgAD-big' }]);
  });

  it('replies with sendMessage, sendPhoto and an inline keyboard; disconnecting deletes the webhook', async () => {
    const admin = await signupWorkspace(t);
    const { channelId, secret, botToken } = await connectBot(admin);
    const chat = chatId();
    const ack = await postUpdate(messageUpdate(chat, 10, { text: 'Photo of the red one?' }), secret).expect(200);
    const event = await eventReaches(t, admin, channelId, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);
    const send = (body: Record<string, unknown>) =>
      t.http.post(`/conversations/${conversationId}/messages`).set(admin.headers).send(body).expect(201);
    await send({ text: 'Sure' });
    await eventually(async () => expect(mock.received(`/telegram/bot${botToken}/sendMessage`)).toHaveLength(1));
    await send({ text: 'Here', attachments: [{ type: 'image', url: 'https://cdn.example.com/red.jpg' }] });
    await eventually(async () => expect(mock.received(`/telegram/bot${botToken}/sendPhoto`)).toHaveLength(1));
    await send({ text: 'Size?', buttons: [{ title: 'M', payload: 'SIZE_M' }] });
    await eventually(async () => expect(mock.received(`/telegram/bot${botToken}/sendMessage`)).toHaveLength(2));
    const [text, keyboard] = mock.received(`/telegram/bot${botToken}/sendMessage`);
    expect(text!.json).toEqual({ chat_id: String(chat), text: 'Sure' });
    expect(mock.received(`/telegram/bot${botToken}/sendPhoto`)[0]!.json).toEqual({
      chat_id: String(chat),
      photo: 'https://cdn.example.com/red.jpg',
      caption: 'Here',
    });
    expect(keyboard!.json).toEqual({
      chat_id: String(chat),
      text: 'Size?',
      reply_markup: { inline_keyboard: [[{ text: 'M', callback_data: 'SIZE_M' }]] },
    });
    const sent = await conversationSatisfies(t, admin, conversationId, (c) => {
      expect(c.messages.filter((m) => m.deliveryStatus === 'SENT')).toHaveLength(3);
    });
    expect(sent.messages[1]!.externalId).toMatch(new RegExp(`^${chat}:\\d+$`));

    await t.http.delete(`/channels/${channelId}`).set(admin.headers).expect(204);
    expect(mock.received(`/telegram/bot${botToken}/deleteWebhook`)).toHaveLength(1);
    // DESIGN §4.1: later inbound to a disconnected connection → 404, nothing stored.
    const gone = await postUpdate(messageUpdate(chat, 11, { text: 'hello?' }), secret).expect(404);
    expect(gone.body).toMatchObject({ statusCode: 404, code: 'not_found' });
    const [stored] = await sql<{ n: number }>(
      t,
      'SELECT count(*)::int AS n FROM inbound_events WHERE channel_id = $1',
      [channelId],
    );
    const before = stored!.n;
    await postUpdate(messageUpdate(chat, 12, { text: 'again?' }), secret).expect(404);
    const [after] = await sql<{ n: number }>(t, 'SELECT count(*)::int AS n FROM inbound_events WHERE channel_id = $1', [
      channelId,
    ]);
    expect(after!.n).toBe(before);
    // An unknown token is still 401.
    await postUpdate(messageUpdate(chat, 13, { text: 'x' }), 'never-issued-token').expect(401);
  });
});
