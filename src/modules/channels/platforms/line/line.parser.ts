import type { InboundAttachment, NormalizedInbound } from '../../channel.types';
import { inboundTypeOf } from '../inbound-type.util';
import { type Json, arr, idOf, obj, str, unixTime } from '../json.util';

/** LINE reply tokens must be used within about a minute; we use them for 50 seconds, then push. */
export const LINE_REPLY_TOKEN_TTL_MS = 50_000;

export interface LineWebhookItem {
  readonly senderKey: string;
  readonly externalId: string | null;
  readonly payload: Json;
}

/**
 * Splits a LINE webhook body into one item per `message` or `postback` event from a user (1:1
 * chats). `follow`, `unfollow`, `join`, group and room events are acknowledged and dropped. The
 * verification request (`events: []`) yields nothing.
 */
export function splitLineWebhook(body: unknown): LineWebhookItem[] {
  const root = obj(body);
  if (!root) return [];
  const destination = str(root.destination);
  const items: LineWebhookItem[] = [];
  for (const raw of arr(root.events)) {
    const event = obj(raw);
    if (!event || (event.type !== 'message' && event.type !== 'postback')) continue;
    const source = obj(event.source);
    const userId = str(source?.userId);
    if (!userId || source?.type !== 'user') continue;
    const externalId = event.type === 'message' ? idOf(obj(event.message)?.id) : str(event.webhookEventId);
    items.push({ senderKey: userId, externalId, payload: { destination, event } });
  }
  return items;
}

/** A stored LINE event in the platform-neutral form. Content is referenced as `line:content/<messageId>`. */
export function normalizeLineEvent(payload: Json, receivedAt: Date): NormalizedInbound {
  const event = obj(payload.event);
  const userId = str(obj(event?.source)?.userId);
  if (!event || !userId) return { kind: 'ignored', reason: 'no user' };
  const replyTokenValue = str(event.replyToken);
  const replyToken = replyTokenValue
    ? { token: replyTokenValue, expiresAt: new Date(receivedAt.getTime() + LINE_REPLY_TOKEN_TTL_MS) }
    : null;
  const sentAt = unixTime(event.timestamp);
  if (event.type === 'postback') {
    const postback = obj(event.postback);
    return {
      kind: 'message',
      sender: { externalId: userId, profile: {} },
      message: {
        externalId: str(event.webhookEventId),
        type: 'POSTBACK',
        text: null,
        attachments: [],
        postbackPayload: str(postback?.data) ?? '',
        sentAt,
        referral: null,
      },
      replyToken,
    };
  }
  const message = obj(event.message);
  const id = idOf(message?.id);
  if (!message || !id) return { kind: 'ignored', reason: 'no message' };
  let text: string | null = null;
  const attachments: InboundAttachment[] = [];
  switch (message.type) {
    case 'text':
      text = str(message.text);
      break;
    case 'image':
    case 'video':
    case 'audio':
    case 'file':
      attachments.push({ type: message.type, url: `line:content/${id}` });
      break;
    case 'sticker':
      attachments.push({
        type: 'sticker',
        url: `line:sticker/${String(message.packageId)}/${String(message.stickerId)}`,
      });
      break;
    case 'location':
      text = [str(message.title), str(message.address)].filter(Boolean).join(', ') || null;
      break;
    default:
      return { kind: 'ignored', reason: `unsupported LINE message type ${String(message.type)}` };
  }
  return {
    kind: 'message',
    sender: { externalId: userId, profile: {} },
    message: {
      externalId: id,
      type: inboundTypeOf(text, attachments, null),
      text,
      attachments,
      postbackPayload: null,
      sentAt,
      referral: null,
    },
    replyToken,
  };
}
