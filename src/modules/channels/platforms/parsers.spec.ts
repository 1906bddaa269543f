import { describe, expect, it } from '@jest/globals';
import { normalizeCustomMessage } from './custom/custom.parser';
import { inboundTypeOf } from './inbound-type.util';
import { normalizeLineEvent, splitLineWebhook } from './line/line.parser';
import { metaWebhookAccounts, normalizeMetaEvent, splitMetaWebhook } from './meta/meta.parser';
import { normalizeTelegramUpdate, telegramUpdateItem } from './telegram/telegram.parser';
import { unixTime } from './json.util';

describe('inbound message types (DESIGN §14)', () => {
  it('postback > text > image > other attachment', () => {
    expect(inboundTypeOf('hi', [], 'P')).toBe('POSTBACK');
    expect(inboundTypeOf('hi', [{ type: 'image', url: 'u' }], null)).toBe('TEXT');
    expect(inboundTypeOf(null, [{ type: 'IMAGE', url: 'u' }], null)).toBe('IMAGE');
    expect(inboundTypeOf(null, [{ type: 'video', url: 'u' }], null)).toBe('FILE');
  });

  it('reads Unix time in seconds or milliseconds', () => {
    expect(unixTime(1763800000)?.toISOString()).toBe('2025-11-22T08:26:40.000Z');
    expect(unixTime(1763800000123)?.toISOString()).toBe('2025-11-22T08:26:40.123Z');
    expect(unixTime('1763800000')?.toISOString()).toBe('2025-11-22T08:26:40.000Z');
    expect(unixTime('soon')).toBeNull();
  });
});

describe('Meta webhooks', () => {
  it('splits a Messenger batch into messages and postbacks, dropping echoes and receipts', () => {
    const body = {
      object: 'page',
      entry: [
        {
          id: 'PAGE',
          time: 1,
          messaging: [
            { sender: { id: 'U1' }, recipient: { id: 'PAGE' }, timestamp: 1, message: { mid: 'm1', text: 'a' } },
            {
              sender: { id: 'PAGE' },
              recipient: { id: 'U1' },
              timestamp: 1,
              message: { mid: 'e', text: 'x', is_echo: true },
            },
            { sender: { id: 'U1' }, recipient: { id: 'PAGE' }, delivery: { mids: ['m'] } },
            { sender: { id: 'U1' }, recipient: { id: 'PAGE' }, read: { watermark: 1 } },
          ],
        },
        {
          id: 'PAGE2',
          time: 1,
          messaging: [
            {
              sender: { id: 'U2' },
              recipient: { id: 'PAGE2' },
              timestamp: 2,
              postback: { title: 'Go', payload: 'GO' },
            },
          ],
        },
      ],
    };
    const items = splitMetaWebhook(body);
    expect(items.map((i) => [i.type, i.accountId, i.senderKey, i.externalId])).toEqual([
      ['MESSENGER', 'PAGE', 'U1', 'm1'],
      ['MESSENGER', 'PAGE2', 'U2', null],
    ]);
    expect(metaWebhookAccounts(body)).toEqual([
      { type: 'MESSENGER', accountId: 'PAGE' },
      { type: 'MESSENGER', accountId: 'PAGE2' },
    ]);
    const postback = normalizeMetaEvent('MESSENGER', items[1]!.payload);
    expect(postback).toMatchObject({
      kind: 'message',
      message: { type: 'POSTBACK', text: 'Go', postbackPayload: 'GO', externalId: 'postback:U2:2' },
    });
  });

  it('keeps quick replies as postbacks and ad referrals', () => {
    const payload = {
      messaging: {
        sender: { id: 'U1' },
        timestamp: 1763800000000,
        message: {
          mid: 'm',
          text: 'Red',
          quick_reply: { payload: 'COLOR_RED' },
          referral: { ad_id: '123', source: 'ADS', ref: 'spring' },
        },
      },
    };
    expect(normalizeMetaEvent('INSTAGRAM', payload)).toMatchObject({
      kind: 'message',
      message: {
        type: 'POSTBACK',
        text: 'Red',
        postbackPayload: 'COLOR_RED',
        referral: { adId: '123', source: 'ADS', ref: 'spring' },
      },
    });
  });

  it('splits WhatsApp messages and statuses and normalises each', () => {
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA',
          changes: [
            {
              field: 'messages',
              value: {
                metadata: { phone_number_id: 'PN' },
                contacts: [{ profile: { name: 'Walt' }, wa_id: '155' }],
                messages: [
                  {
                    from: '155',
                    id: 'wamid.1',
                    timestamp: '1763800000',
                    type: 'image',
                    image: { id: 'MEDIA', caption: 'this one' },
                  },
                ],
                statuses: [{ id: 'wamid.OUT', status: 'failed', errors: [{ code: 1, title: 'Oops' }] }],
              },
            },
          ],
        },
      ],
    };
    const [message, status] = splitMetaWebhook(body);
    expect(message).toMatchObject({ type: 'WHATSAPP', accountId: 'PN', senderKey: '155', externalId: 'wamid.1' });
    expect(normalizeMetaEvent('WHATSAPP', message!.payload)).toMatchObject({
      kind: 'message',
      sender: { externalId: '155', profile: { name: 'Walt', phone: '+155' } },
      message: { type: 'TEXT', text: 'this one', attachments: [{ type: 'image', url: 'whatsapp:media/MEDIA' }] },
    });
    expect(normalizeMetaEvent('WHATSAPP', status!.payload)).toEqual({
      kind: 'delivery',
      externalMessageId: 'wamid.OUT',
      update: 'FAILED',
      error: 'Oops',
    });
  });

  it('ignores what it does not understand', () => {
    expect(splitMetaWebhook({ object: 'user', entry: [{ id: '1', changes: [] }] })).toEqual([]);
    expect(splitMetaWebhook('nonsense')).toEqual([]);
    expect(normalizeMetaEvent('WHATSAPP', { message: { from: '1', id: 'x', type: 'reaction' } })).toMatchObject({
      kind: 'ignored',
    });
  });
});

describe('Telegram updates', () => {
  const chat = { id: 42, type: 'private' };
  it('stores private messages and button presses only', () => {
    expect(telegramUpdateItem({ update_id: 1, message: { message_id: 7, chat, from: { id: 42 }, text: 'x' } })).toEqual(
      { senderKey: '42', externalId: '42:7' },
    );
    expect(
      telegramUpdateItem({ update_id: 1, message: { message_id: 7, chat: { id: -1, type: 'group' }, text: 'x' } }),
    ).toBeNull();
    expect(telegramUpdateItem({ update_id: 1, edited_message: { message_id: 7, chat, text: 'x' } })).toBeNull();
    expect(
      telegramUpdateItem({
        update_id: 1,
        callback_query: { id: 'cb', from: { id: 42 }, message: { message_id: 1, chat }, data: 'D' },
      }),
    ).toEqual({
      senderKey: '42',
      externalId: 'callback:cb',
    });
  });

  it('names the sender and references the largest photo', () => {
    const normalized = normalizeTelegramUpdate({
      update_id: 1,
      message: {
        message_id: 8,
        chat,
        from: { id: 42, first_name: 'Tom', last_name: 'Gram' },
        date: 1763800000,
        photo: [{ file_id: 's' }, { file_id: 'L' }],
      },
    });
    expect(normalized).toMatchObject({
      kind: 'message',
      sender: { externalId: '42', profile: { name: 'Tom Gram' } },
      message: { type: 'IMAGE', text: null, attachments: [{ type: 'image', url: 'telegram:file/L' }] },
    });
  });
});

describe('LINE webhooks', () => {
  it('splits user message and postback events; the reply token is usable for 50 seconds', () => {
    const body = {
      destination: 'Ubot',
      events: [
        { type: 'follow', source: { type: 'user', userId: 'U1' }, replyToken: 'r0' },
        {
          type: 'message',
          source: { type: 'user', userId: 'U1' },
          replyToken: 'r1',
          message: { id: '100', type: 'text', text: 'hi' },
          timestamp: 1,
        },
        {
          type: 'postback',
          source: { type: 'user', userId: 'U1' },
          replyToken: 'r2',
          webhookEventId: 'W2',
          postback: { data: 'a=1' },
        },
        {
          type: 'message',
          source: { type: 'group', groupId: 'G', userId: 'U1' },
          message: { id: '101', type: 'text', text: 'x' },
        },
      ],
    };
    const items = splitLineWebhook(body);
    expect(items.map((i) => [i.senderKey, i.externalId])).toEqual([
      ['U1', '100'],
      ['U1', 'W2'],
    ]);
    const receivedAt = new Date('2026-01-01T00:00:00Z');
    expect(normalizeLineEvent(items[0]!.payload, receivedAt)).toMatchObject({
      kind: 'message',
      message: { type: 'TEXT', text: 'hi', externalId: '100' },
      replyToken: { token: 'r1', expiresAt: new Date('2026-01-01T00:00:50Z') },
    });
    expect(normalizeLineEvent(items[1]!.payload, receivedAt)).toMatchObject({
      message: { type: 'POSTBACK', postbackPayload: 'a=1' },
    });
    expect(splitLineWebhook({ destination: 'Ubot', events: [] })).toEqual([]);
  });
});

describe('Custom Channel messages', () => {
  it('maps the SPEC §2 body', () => {
    expect(
      normalizeCustomMessage({
        senderId: 's',
        senderName: 'Ada',
        text: 'hi',
        timestamp: 1763800000,
        messageId: 'm1',
        attachments: [{ type: 'image', url: 'u' }],
      }),
    ).toMatchObject({
      kind: 'message',
      sender: { externalId: 's', profile: { name: 'Ada' } },
      message: {
        externalId: 'm1',
        type: 'TEXT',
        text: 'hi',
        attachments: [{ type: 'image', url: 'u' }],
        sentAt: new Date(1763800000 * 1000),
      },
    });
  });
});
