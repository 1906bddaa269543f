import type { InboundAttachment, NormalizedInbound } from '../../channel.types';
import { inboundTypeOf } from '../inbound-type.util';
import { type Json, arr, idOf, obj, str, unixTime } from '../json.util';

export interface TelegramUpdateItem {
  readonly senderKey: string;
  readonly externalId: string;
}

/**
 * Which Telegram `Update`s are stored: a `message` or a `callback_query` (button press) in a
 * private chat. Edited messages, channel posts, group chats and membership updates are acknowledged
 * and dropped. The chat id is the customer's id (private chat id = user id).
 */
export function telegramUpdateItem(update: unknown): TelegramUpdateItem | null {
  const root = obj(update);
  if (!root) return null;
  const message = obj(root.message);
  if (message) {
    const chat = obj(message.chat);
    const chatId = idOf(chat?.id);
    const messageId = idOf(message.message_id);
    if (!chatId || !messageId || chat?.type !== 'private') return null;
    return { senderKey: chatId, externalId: `${chatId}:${messageId}` };
  }
  const callback = obj(root.callback_query);
  if (callback) {
    const chat = obj(obj(callback.message)?.chat);
    const chatId = idOf(chat?.id) ?? idOf(obj(callback.from)?.id);
    const id = idOf(callback.id);
    if (!chatId || !id || (chat && chat.type !== 'private')) return null;
    return { senderKey: chatId, externalId: `callback:${id}` };
  }
  return null;
}

function nameOf(user: Json | null): string | null {
  if (!user) return null;
  const full = [str(user.first_name), str(user.last_name)].filter(Boolean).join(' ');
  return full || str(user.username);
}

/** A stored Telegram update in the platform-neutral form. Files are referenced as `telegram:file/<file_id>`. */
export function normalizeTelegramUpdate(payload: Json): NormalizedInbound {
  const item = telegramUpdateItem(payload);
  if (!item) return { kind: 'ignored', reason: 'not a private-chat message' };
  const message = obj(payload.message);
  if (message) {
    const attachments: InboundAttachment[] = [];
    const photos = arr(message.photo).map(obj);
    const largest = photos[photos.length - 1];
    const photoId = str(largest?.file_id);
    if (photoId) attachments.push({ type: 'image', url: `telegram:file/${photoId}` });
    for (const kind of ['document', 'video', 'audio', 'voice', 'sticker'] as const) {
      const fileId = str(obj(message[kind])?.file_id);
      if (fileId) attachments.push({ type: kind === 'document' ? 'file' : kind, url: `telegram:file/${fileId}` });
    }
    const text = str(message.text) ?? str(message.caption);
    const from = obj(message.from);
    return {
      kind: 'message',
      sender: { externalId: item.senderKey, profile: { name: nameOf(from) } },
      message: {
        externalId: item.externalId,
        type: inboundTypeOf(text, attachments, null),
        text,
        attachments,
        postbackPayload: null,
        sentAt: unixTime(message.date),
        referral: null,
      },
      replyToken: null,
    };
  }
  const callback = obj(payload.callback_query) ?? {};
  const data = str(callback.data) ?? '';
  const keyboard = arr(obj(obj(callback.message)?.reply_markup)?.inline_keyboard)
    .flatMap(arr)
    .map(obj);
  const pressed = keyboard.find((button) => button && str(button.callback_data) === data);
  return {
    kind: 'message',
    sender: { externalId: item.senderKey, profile: { name: nameOf(obj(callback.from)) } },
    message: {
      externalId: item.externalId,
      type: 'POSTBACK',
      text: str(pressed?.text),
      attachments: [],
      postbackPayload: data,
      sentAt: null,
      referral: null,
    },
    replyToken: null,
  };
}
