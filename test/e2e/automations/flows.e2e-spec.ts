import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { InboundPipeline } from 'src/modules/inbound';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import {
  base64Signature,
  connectCustom,
  conversationOfMessage,
  eventReaches,
  hexSignature,
  inboxEnv,
  postCustom,
  sql,
} from '../inbox/inbox-helpers';
import { MockPlatform, type RecordedRequest } from '../inbox/mock-platform';

type Body = Record<string, unknown>;
const META_SECRET = 'flows-meta-app-secret';
const NOW = 1763800000000;
const uid = (prefix: string): string => `${prefix}${randomBytes(5).toString('hex')}`;

/** The flows every platform test uses (DESIGN §14 shapes). */
const MENU_BUTTONS = [
  { title: 'Sizes', payload: 'SIZES' },
  { title: 'Opening hours', payload: 'HOURS' },
  { title: 'Talk to a human', payload: 'HUMAN' },
];
const MORE_BUTTONS = [...MENU_BUTTONS, { title: 'Returns', payload: 'RETURNS' }];

describe('FLOWS on every platform: keyword, postback and ad referral from real payloads, buttons in each format', () => {
  let t: TestApp;
  let mock: MockPlatform;
  const afterFlow: string[] = [];
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock, { META_APP_SECRET: META_SECRET }) });
    // A probe in the reply group after the flow: it must not run for a message a flow handled.
    t.app.get(InboundPipeline).register({
      name: 'test.after-flow-probe',
      order: 415,
      group: 'reply',
      run: async (context) => {
        afterFlow.push(context.message.id);
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  async function flows(admin: Session): Promise<Record<string, string>> {
    const create = async (name: string, trigger: Body, actions: Body[]) =>
      (await t.http.post('/automations').set(admin.headers).send({ name, kind: 'FLOW', trigger, actions }).expect(201))
        .body.id as string;
    return {
      menu: await create('Menu', { type: 'KEYWORD', keywords: ['menu'], match: 'EXACT' }, [
        { type: 'SEND_BUTTONS', params: { text: 'How can we help, {{contact.name}}?', buttons: MENU_BUTTONS } },
      ]),
      more: await create('More', { type: 'KEYWORD', keywords: ['more options'], match: 'CONTAINS' }, [
        { type: 'SEND_BUTTONS', params: { text: 'All options', buttons: MORE_BUTTONS } },
      ]),
      hours: await create('Hours', { type: 'POSTBACK', payload: 'HOURS' }, [
        { type: 'SEND_TEXT', params: { text: 'We are open 9:00-18:00' } },
      ]),
      human: await create('Human', { type: 'POSTBACK', payload: 'HUMAN' }, [
        { type: 'SEND_TEXT', params: { text: 'A person will answer shortly' } },
        { type: 'ADD_TAGS', params: { tags: ['wants-human'] } },
        { type: 'HANDOFF_HUMAN', params: {} },
      ]),
      sizes: await create('Sizes', { type: 'POSTBACK', payload: 'SIZES' }, [{ type: 'HANDOFF_AI', params: {} }]),
      ad: await create('Ad', { type: 'AD_REFERRAL', adIds: ['ad-777'] }, [
        { type: 'SEND_TEXT', params: { text: 'Thanks for clicking our ad!' } },
        { type: 'SEND_IMAGE', params: { url: 'https://cdn.example.com/promo.jpg', caption: 'This week only' } },
      ]),
    };
  }

  /** Waits for the event, returns its message id and conversation id. */
  async function processed(admin: Session, channelId: string, eventId: string) {
    const event = await eventReaches(t, admin, channelId, eventId);
    expect(event.outcome).toBe('MESSAGE_STORED');
    const messageId = event.messageId as string;
    return { messageId, conversationId: await conversationOfMessage(t, messageId) };
  }

  /** The next request at `path` after `from` requests were seen there. */
  async function nextAt(path: string, from: number, count = 1): Promise<RecordedRequest[]> {
    return eventually(async () => {
      const got = mock.received(path, 'POST').slice(from);
      expect(got.length).toBeGreaterThanOrEqual(count);
      return got.slice(0, count);
    });
  }

  async function runs(admin: Session, automationId: string) {
    return (await t.http.get(`/automations/runs?automationId=${automationId}`).set(admin.headers).expect(200)).body
      .data;
  }

  const aiState = async (conversationId: string) =>
    (
      await sql<{ status: string }>(t, 'SELECT status FROM ai_conversation_states WHERE conversation_id = $1', [
        conversationId,
      ])
    )[0]?.status ?? null;

  function postMeta(payload: unknown) {
    const raw = JSON.stringify(payload);
    return t.http
      .post('/webhooks/meta')
      .set('content-type', 'application/json')
      .set('x-hub-signature-256', hexSignature(META_SECRET, raw))
      .send(raw);
  }

  it('Messenger: "menu" → button template, 4 buttons → quick replies, postback and quick_reply payloads, ad referral', async () => {
    const admin = await signupWorkspace(t, 'Messenger flows');
    const ids = await flows(admin);
    const pageId = uid('page');
    const channelId = (
      await t.http
        .post('/channels/connect')
        .set(admin.headers)
        .send({ type: 'MESSENGER', pageId, pageAccessToken: 'page-token' })
        .expect(201)
    ).body.id;
    const psid = uid('psid');
    const messaging = (extra: Body) => ({ sender: { id: psid }, recipient: { id: pageId }, timestamp: NOW, ...extra });
    const send = async (item: Body) => {
      const ack = await postMeta({ object: 'page', entry: [{ id: pageId, time: NOW, messaging: [item] }] }).expect(200);
      return processed(admin, channelId, ack.body.eventIds[0]);
    };
    const before = mock.received('/me/messages', 'POST').length;

    const menu = await send(messaging({ message: { mid: uid('m_'), text: 'Menú!' } }));
    const [template] = await nextAt('/me/messages', before);
    expect(template!.json).toEqual({
      recipient: { id: psid },
      messaging_type: 'RESPONSE',
      message: {
        attachment: {
          type: 'template',
          payload: {
            template_type: 'button',
            text: 'How can we help, Mia Messenger?',
            buttons: MENU_BUTTONS.map((b) => ({ type: 'postback', title: b.title, payload: b.payload })),
          },
        },
      },
    });
    expect(afterFlow).not.toContain(menu.messageId);

    await send(messaging({ message: { mid: uid('m_'), text: 'Can I see more options?' } }));
    const [quick] = await nextAt('/me/messages', before + 1);
    expect(quick!.json).toEqual({
      recipient: { id: psid },
      messaging_type: 'RESPONSE',
      message: {
        text: 'All options',
        quick_replies: MORE_BUTTONS.map((b) => ({ content_type: 'text', title: b.title, payload: b.payload })),
      },
    });

    // The button template's postback, then a quick reply carrying a payload.
    await send(messaging({ postback: { mid: uid('m_pb'), title: 'Opening hours', payload: 'HOURS' } }));
    const [hours] = await nextAt('/me/messages', before + 2);
    expect((hours!.json as Body).message).toEqual({ text: 'We are open 9:00-18:00' });
    const human = await send(
      messaging({ message: { mid: uid('m_'), text: 'Talk to a human', quick_reply: { payload: 'HUMAN' } } }),
    );
    const [humanReply] = await nextAt('/me/messages', before + 3);
    expect((humanReply!.json as Body).message).toEqual({ text: 'A person will answer shortly' });
    expect(await aiState(human.conversationId)).toBe('HUMAN');
    expect(afterFlow).not.toContain(human.messageId);

    // A click-to-Messenger ad: the message carries the referral with ad_id.
    await send(
      messaging({
        message: {
          mid: uid('m_'),
          text: 'Is this still available?',
          referral: { ref: 'spring', ad_id: 'ad-777', source: 'ADS', type: 'OPEN_THREAD' },
        },
      }),
    );
    const [adText, adImage, adImageDone] = await nextAt('/me/messages', before + 4, 3);
    expect((adText!.json as Body).message).toEqual({ text: 'Thanks for clicking our ad!' });
    expect((adImage!.json as Body).message).toEqual({ text: 'This week only' });
    expect((adImageDone!.json as Body).message).toEqual({
      attachment: { type: 'image', payload: { url: 'https://cdn.example.com/promo.jpg', is_reusable: true } },
    });
    // A `messaging_referrals` event: an ad click on the existing thread, no message.
    await send(messaging({ referral: { ref: 'spring', ad_id: 'ad-777', source: 'ADS', type: 'OPEN_THREAD' } }));
    const [again] = await nextAt('/me/messages', before + 7);
    expect((again!.json as Body).message).toEqual({ text: 'Thanks for clicking our ad!' });
    // An unmatched message runs no flow: the next stage of the reply group does run.
    const plain = await send(messaging({ message: { mid: uid('m_'), text: 'menu please' } }));
    expect(afterFlow).toContain(plain.messageId);

    expect((await runs(admin, ids.menu))[0]).toMatchObject({
      trigger: 'KEYWORD',
      matched: true,
      status: 'SUCCESS',
      conversationId: menu.conversationId,
      actions: [{ type: 'SEND_BUTTONS', status: 'SUCCESS', error: null }],
    });
    expect((await runs(admin, ids.human))[0].actions.map((a: Body) => a.type)).toEqual([
      'SEND_TEXT',
      'ADD_TAGS',
      'HANDOFF_HUMAN',
    ]);
    expect((await runs(admin, ids.ad))[0]).toMatchObject({ trigger: 'AD_REFERRAL', status: 'SUCCESS' });
    const conversation = (await t.http.get(`/conversations/${human.conversationId}`).set(admin.headers).expect(200))
      .body;
    expect(conversation.tags).toEqual(['wants-human']);
  });

  it('Instagram: quick replies', async () => {
    const admin = await signupWorkspace(t, 'Instagram flows');
    await flows(admin);
    const igId = uid('ig');
    const channelId = (
      await t.http
        .post('/channels/connect')
        .set(admin.headers)
        .send({ type: 'INSTAGRAM', igAccountId: igId, accessToken: 'ig-token' })
        .expect(201)
    ).body.id;
    const igsid = uid('igsid');
    const before = mock.received('/me/messages', 'POST').length;
    const ack = await postMeta({
      object: 'instagram',
      entry: [
        {
          id: igId,
          time: NOW,
          messaging: [
            {
              sender: { id: igsid },
              recipient: { id: igId },
              timestamp: NOW,
              message: { mid: uid('ig_'), text: 'MENU' },
            },
          ],
        },
      ],
    }).expect(200);
    await processed(admin, channelId, ack.body.eventIds[0]);
    const [sent] = await nextAt('/me/messages', before);
    expect(sent!.json).toEqual({
      recipient: { id: igsid },
      messaging_type: 'RESPONSE',
      message: {
        text: 'How can we help, Ida Insta?',
        quick_replies: MENU_BUTTONS.map((b) => ({ content_type: 'text', title: b.title, payload: b.payload })),
      },
    });
  });

  it('WhatsApp: reply buttons (≤ 3) or a list, button_reply / list_reply payloads, click-to-WhatsApp referral', async () => {
    const admin = await signupWorkspace(t, 'WhatsApp flows');
    const ids = await flows(admin);
    const phoneNumberId = uid('phone');
    const channelId = (
      await t.http
        .post('/channels/connect')
        .set(admin.headers)
        .send({ type: 'WHATSAPP', phoneNumberId, wabaId: 'waba-f', accessToken: 'wa-token' })
        .expect(201)
    ).body.id;
    const waId = `1555${Math.floor(Math.random() * 1e7)}`;
    const path = `/${phoneNumberId}/messages`;
    const send = async (message: Body) => {
      const ack = await postMeta({
        object: 'whatsapp_business_account',
        entry: [
          {
            id: 'waba-f',
            changes: [
              {
                field: 'messages',
                value: {
                  messaging_product: 'whatsapp',
                  metadata: { display_phone_number: '15550100', phone_number_id: phoneNumberId },
                  contacts: [{ profile: { name: 'Walt Whats' }, wa_id: waId }],
                  messages: [{ from: waId, id: uid('wamid.IN'), timestamp: '1763800000', ...message }],
                },
              },
            ],
          },
        ],
      }).expect(200);
      return processed(admin, channelId, ack.body.eventIds[0]);
    };
    const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to: waId };
    await send({ type: 'text', text: { body: 'menu' } });
    expect((await nextAt(path, 0))[0]!.json).toEqual({
      ...base,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'How can we help, Walt Whats?' },
        action: { buttons: MENU_BUTTONS.map((b) => ({ type: 'reply', reply: { id: b.payload, title: b.title } })) },
      },
    });
    await send({ type: 'text', text: { body: 'more options' } });
    expect((await nextAt(path, 1))[0]!.json).toEqual({
      ...base,
      type: 'interactive',
      interactive: {
        type: 'list',
        body: { text: 'All options' },
        action: {
          button: 'Options',
          sections: [{ title: 'Options', rows: MORE_BUTTONS.map((b) => ({ id: b.payload, title: b.title })) }],
        },
      },
    });
    await send({
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: { id: 'HOURS', title: 'Opening hours' } },
    });
    expect((await nextAt(path, 2))[0]!.json).toEqual({
      ...base,
      type: 'text',
      text: { preview_url: false, body: 'We are open 9:00-18:00' },
    });
    const sizes = await send({
      type: 'interactive',
      interactive: { type: 'list_reply', list_reply: { id: 'SIZES', title: 'Sizes', description: '' } },
    });
    await eventually(async () => expect(await aiState(sizes.conversationId)).toBe('ACTIVE'));
    expect((await runs(admin, ids.sizes))[0]).toMatchObject({ trigger: 'POSTBACK', status: 'SUCCESS' });
    await send({
      type: 'text',
      text: { body: 'Hi! I saw this ad' },
      referral: { source_url: 'https://fb.me/x', source_id: 'ad-777', source_type: 'ad', headline: 'Spring sale' },
    });
    const [adText, adImage] = await nextAt(path, 3, 2);
    expect(adText!.json).toEqual({
      ...base,
      type: 'text',
      text: { preview_url: false, body: 'Thanks for clicking our ad!' },
    });
    expect(adImage!.json).toEqual({
      ...base,
      type: 'image',
      image: { link: 'https://cdn.example.com/promo.jpg', caption: 'This week only' },
    });
  });

  it('Telegram: inline_keyboard, callback_query.data runs the postback flow and is answered', async () => {
    const admin = await signupWorkspace(t, 'Telegram flows');
    const ids = await flows(admin);
    const botToken = `${Math.floor(Math.random() * 1e9)}:AA${randomBytes(12).toString('hex')}`;
    const channelId = (
      await t.http.post('/channels/connect').set(admin.headers).send({ type: 'TELEGRAM', botToken }).expect(201)
    ).body.id;
    const secret = (mock.received(`/telegram/bot${botToken}/setWebhook`, 'POST')[0]!.json as { secret_token: string })
      .secret_token;
    const chat = 100_000_000 + Math.floor(Math.random() * 800_000_000);
    const user = { id: chat, is_bot: false, first_name: 'Tom', last_name: 'Gram', username: 'tomg' };
    const privateChat = { id: chat, first_name: 'Tom', type: 'private' };
    const post = async (update: Body) => {
      const ack = await t.http
        .post('/webhooks/telegram')
        .set('x-telegram-bot-api-secret-token', secret)
        .send(update)
        .expect(200);
      return processed(admin, channelId, ack.body.eventIds[0]);
    };
    await post({
      update_id: 1,
      message: { message_id: 10, from: user, chat: privateChat, date: 1763800000, text: '/menu' },
    });
    const [keyboard] = await nextAt(`/telegram/bot${botToken}/sendMessage`, 0);
    expect(keyboard!.json).toEqual({
      chat_id: String(chat),
      text: 'How can we help, Tom Gram?',
      reply_markup: { inline_keyboard: MENU_BUTTONS.map((b) => [{ text: b.title, callback_data: b.payload }]) },
    });
    const callbackId = `cb${randomBytes(4).toString('hex')}`;
    await post({
      update_id: 2,
      callback_query: {
        id: callbackId,
        from: user,
        chat_instance: '-1',
        data: 'HOURS',
        message: {
          message_id: 11,
          chat: privateChat,
          date: 1763800001,
          text: 'How can we help, Tom Gram?',
          reply_markup: (keyboard!.json as Body).reply_markup,
        },
      },
    });
    const [hours] = await nextAt(`/telegram/bot${botToken}/sendMessage`, 1);
    expect(hours!.json).toEqual({ chat_id: String(chat), text: 'We are open 9:00-18:00' });
    const [answered] = await nextAt(`/telegram/bot${botToken}/answerCallbackQuery`, 0);
    expect(answered!.json).toEqual({ callback_query_id: callbackId });
    expect((await runs(admin, ids.hours))[0]).toMatchObject({ trigger: 'POSTBACK', status: 'SUCCESS' });
  });

  it('LINE: buttons template by reply token, quick replies past 4 buttons, postback.data', async () => {
    const admin = await signupWorkspace(t, 'LINE flows');
    await flows(admin);
    const channelSecret = randomBytes(16).toString('hex');
    const res = await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({ type: 'LINE', channelSecret, channelAccessToken: `line-${randomBytes(6).toString('hex')}` })
      .expect(201);
    const channelId = res.body.id;
    const destination = res.body.config.lineDestination;
    const userId = `U${randomBytes(16).toString('hex')}`;
    const post = async (event: Body) => {
      const body = {
        destination,
        events: [
          {
            webhookEventId: uid('EV'),
            timestamp: Date.now(),
            mode: 'active',
            source: { type: 'user', userId },
            deliveryContext: { isRedelivery: false },
            ...event,
          },
        ],
      };
      const ack = await t.http
        .post('/webhooks/line')
        .set('content-type', 'application/json')
        .set('x-line-signature', base64Signature(channelSecret, JSON.stringify(body)))
        .send(JSON.stringify(body))
        .expect(200);
      return processed(admin, channelId, ack.body.eventIds[0]);
    };
    const before = mock.received('/line/v2/bot/message/', 'POST').length;
    await post({ type: 'message', replyToken: 'rt-menu', message: { id: uid(''), type: 'text', text: 'menu' } });
    const [menu] = await nextAt('/line/v2/bot/message/', before);
    expect(menu!.path).toBe('/line/v2/bot/message/reply');
    const action = (b: { title: string; payload: string }) => ({
      type: 'postback',
      label: b.title,
      data: b.payload,
      displayText: b.title,
    });
    expect(menu!.json).toEqual({
      replyToken: 'rt-menu',
      messages: [
        {
          type: 'template',
          altText: 'How can we help, Lin Line?',
          template: { type: 'buttons', text: 'How can we help, Lin Line?', actions: MENU_BUTTONS.map(action) },
        },
      ],
    });
    await post({
      type: 'message',
      replyToken: 'rt-more',
      message: { id: uid(''), type: 'text', text: 'more options' },
    });
    const [more] = await nextAt('/line/v2/bot/message/', before + 1);
    expect((more!.json as Body).messages).toEqual([
      {
        type: 'template',
        altText: 'All options',
        template: { type: 'buttons', text: 'All options', actions: MORE_BUTTONS.map(action) },
      },
    ]);
    // Past a buttons template's 4 actions: quick reply buttons.
    const five = [...MORE_BUTTONS, { title: 'Stores', payload: 'STORES' }];
    await t.http
      .post('/automations')
      .set(admin.headers)
      .send({
        name: 'Everything',
        kind: 'FLOW',
        trigger: { type: 'KEYWORD', keywords: ['everything'], match: 'CONTAINS' },
        actions: [{ type: 'SEND_BUTTONS', params: { text: 'Everything we do', buttons: five } }],
      })
      .expect(201);
    await post({
      type: 'message',
      replyToken: 'rt-all',
      message: { id: uid(''), type: 'text', text: 'show me EVERYTHING' },
    });
    const [all] = await nextAt('/line/v2/bot/message/', before + 2);
    expect(all!.json).toEqual({
      replyToken: 'rt-all',
      messages: [
        {
          type: 'text',
          text: 'Everything we do',
          quickReply: { items: five.map((b) => ({ type: 'action', action: action(b) })) },
        },
      ],
    });
    await post({ type: 'postback', replyToken: 'rt-pb', postback: { data: 'HOURS' } });
    const [hours] = await nextAt('/line/v2/bot/message/', before + 3);
    expect(hours!.json).toEqual({ replyToken: 'rt-pb', messages: [{ type: 'text', text: 'We are open 9:00-18:00' }] });
  });

  it('Custom Channel: BUTTONS message, postbackPayload', async () => {
    const admin = await signupWorkspace(t, 'Custom flows');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
    const ids = await flows(admin);
    const path = `/custom/flows-${admin.workspaceId}`;
    const channel = await connectCustom(t, admin, mock, { path });
    const send = async (message: Body) => {
      const ack = await postCustom(t, channel, { senderId: 'cu-1', senderName: 'Cora', ...message }).expect(200);
      return processed(admin, channel.id, ack.body.eventId);
    };
    await send({ text: 'Menu' });
    const [buttons] = await nextAt(path, 0);
    expect(buttons!.json).toEqual({
      recipientId: 'cu-1',
      message: { type: 'BUTTONS', text: 'How can we help, Cora?', buttons: MENU_BUTTONS },
      sentAt: expect.any(String),
    });
    expect(buttons!.headers['x-service-signature']).toBe(hexSignature(channel.outboundSecret!, buttons!.raw));
    const human = await send({ postbackPayload: 'HUMAN', text: 'Talk to a human' });
    const [reply] = await nextAt(path, 1);
    expect((reply!.json as Body).message).toEqual({ type: 'TEXT', text: 'A person will answer shortly' });
    expect(await aiState(human.conversationId)).toBe('HUMAN');
    expect((await runs(admin, ids.human))[0]).toMatchObject({ trigger: 'POSTBACK', status: 'SUCCESS' });
  });
});
