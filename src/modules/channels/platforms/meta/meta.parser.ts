import type {
  AdReferral,
  ChannelType,
  DeliveryUpdate,
  InboundAttachment,
  NormalizedInbound,
} from '../../channel.types';
import { inboundTypeOf } from '../inbound-type.util';
import { type Json, arr, idOf, obj, str, unixTime } from '../json.util';

/** One storable event of a Meta webhook POST, before its connection is known. */
export interface MetaWebhookItem {
  readonly type: ChannelType;
  /** Page id (Messenger), Instagram account id, or WhatsApp phone number id. */
  readonly accountId: string;
  readonly senderKey: string | null;
  readonly externalId: string | null;
  readonly payload: Json;
}

/**
 * Every account a Meta POST names — also those whose entries hold only receipts or echoes — so the
 * signature can be checked against each one's app secret.
 */
export function metaWebhookAccounts(body: unknown): { type: ChannelType; accountId: string }[] {
  const root = obj(body);
  const object = str(root?.object);
  const accounts: { type: ChannelType; accountId: string }[] = [];
  for (const rawEntry of arr(root?.entry)) {
    const entry = obj(rawEntry);
    if (!entry) continue;
    if (object === 'page' || object === 'instagram') {
      const id = idOf(entry.id);
      if (id) accounts.push({ type: object === 'page' ? 'MESSENGER' : 'INSTAGRAM', accountId: id });
    } else if (object === 'whatsapp_business_account') {
      for (const change of arr(entry.changes)) {
        const phoneNumberId = idOf(obj(obj(obj(change)?.value)?.metadata)?.phone_number_id);
        if (phoneNumberId) accounts.push({ type: 'WHATSAPP', accountId: phoneNumberId });
      }
    }
  }
  return accounts;
}

/**
 * Splits a Meta webhook body (Messenger `object: page`, Instagram `object: instagram`, WhatsApp
 * `object: whatsapp_business_account`) into one item per customer message, postback or WhatsApp
 * status. Echoes of our own sends, deliveries, reads, reactions and other fields are dropped here:
 * they are acknowledged and never stored.
 */
export function splitMetaWebhook(body: unknown): MetaWebhookItem[] {
  const root = obj(body);
  if (!root) return [];
  const object = str(root.object);
  const items: MetaWebhookItem[] = [];
  for (const rawEntry of arr(root.entry)) {
    const entry = obj(rawEntry);
    if (!entry) continue;
    const entryId = idOf(entry.id);
    if (object === 'page' || object === 'instagram') {
      if (!entryId) continue;
      const type: ChannelType = object === 'page' ? 'MESSENGER' : 'INSTAGRAM';
      for (const rawMessaging of arr(entry.messaging)) {
        const messaging = obj(rawMessaging);
        const item = messaging && messagingItem(type, entryId, entry, messaging, object);
        if (item) items.push(item);
      }
    } else if (object === 'whatsapp_business_account') {
      for (const rawChange of arr(entry.changes)) {
        const change = obj(rawChange);
        const value = obj(change?.value);
        if (!change || change.field !== 'messages' || !value) continue;
        const metadata = obj(value.metadata);
        const phoneNumberId = idOf(metadata?.phone_number_id);
        if (!phoneNumberId) continue;
        const contacts = arr(value.contacts).map(obj);
        for (const rawMessage of arr(value.messages)) {
          const message = obj(rawMessage);
          const from = idOf(message?.from);
          if (!message || !from) continue;
          const contact = contacts.find((c) => c && idOf(c.wa_id) === from) ?? contacts[0] ?? null;
          items.push({
            type: 'WHATSAPP',
            accountId: phoneNumberId,
            senderKey: from,
            externalId: str(message.id),
            payload: { object, entryId, metadata, contact, message },
          });
        }
        for (const rawStatus of arr(value.statuses)) {
          const status = obj(rawStatus);
          if (!status || !str(status.id)) continue;
          items.push({
            type: 'WHATSAPP',
            accountId: phoneNumberId,
            senderKey: null,
            externalId: null,
            payload: { object, entryId, metadata, status },
          });
        }
      }
    }
  }
  return items;
}

function messagingItem(
  type: ChannelType,
  entryId: string,
  entry: Json,
  messaging: Json,
  object: string,
): MetaWebhookItem | null {
  const sender = idOf(obj(messaging.sender)?.id);
  if (!sender) return null;
  const message = obj(messaging.message);
  const postback = obj(messaging.postback);
  if (message) {
    if (message.is_echo === true) return null;
    if (!str(message.mid)) return null;
    return {
      type,
      accountId: entryId,
      senderKey: sender,
      externalId: str(message.mid),
      payload: { object, entryId, entryTime: entry.time ?? null, messaging },
    };
  }
  if (postback) {
    return {
      type,
      accountId: entryId,
      senderKey: sender,
      externalId: str(postback.mid),
      payload: { object, entryId, entryTime: entry.time ?? null, messaging },
    };
  }
  // `messaging_referrals`: an ad (or m.me link) click on an existing thread, with no message.
  if (obj(messaging.referral)) {
    return {
      type,
      accountId: entryId,
      senderKey: sender,
      externalId: referralEventId(sender, messaging),
      payload: { object, entryId, entryTime: entry.time ?? null, messaging },
    };
  }
  return null;
}

function referralEventId(sender: string, messaging: Json): string {
  return `referral:${sender}:${String(messaging.timestamp ?? '')}`;
}

/** A stored Meta event in the platform-neutral form. */
export function normalizeMetaEvent(type: ChannelType, payload: Json): NormalizedInbound {
  if (type === 'WHATSAPP') return normalizeWhatsApp(payload);
  const messaging = obj(payload.messaging);
  const sender = idOf(obj(messaging?.sender)?.id);
  if (!messaging || !sender) return { kind: 'ignored', reason: 'no sender' };
  const sentAt = unixTime(messaging.timestamp);
  const message = obj(messaging.message);
  if (message) {
    const text = str(message.text);
    const attachments: InboundAttachment[] = [];
    for (const raw of arr(message.attachments)) {
      const attachment = obj(raw);
      const url = str(obj(attachment?.payload)?.url);
      const kind = str(attachment?.type);
      if (kind && url) attachments.push({ type: kind, url });
    }
    const quickReply = str(obj(message.quick_reply)?.payload);
    return {
      kind: 'message',
      sender: { externalId: sender, profile: {} },
      message: {
        externalId: str(message.mid),
        type: inboundTypeOf(text, attachments, quickReply),
        text,
        attachments,
        postbackPayload: quickReply,
        sentAt,
        referral: referralOf(message.referral) ?? referralOf(messaging.referral),
      },
      replyToken: null,
    };
  }
  const postback = obj(messaging.postback);
  if (postback) {
    const payloadValue = str(postback.payload) ?? '';
    return {
      kind: 'message',
      sender: { externalId: sender, profile: {} },
      message: {
        externalId: str(postback.mid) ?? `postback:${sender}:${String(messaging.timestamp ?? '')}`,
        type: 'POSTBACK',
        text: str(postback.title),
        attachments: [],
        postbackPayload: payloadValue,
        sentAt,
        referral: referralOf(postback.referral),
      },
      replyToken: null,
    };
  }
  const referral = referralOf(messaging.referral);
  if (referral) {
    // An ad click on an existing thread: stored as an empty message carrying the referral (AD_REFERRAL flows).
    return {
      kind: 'message',
      sender: { externalId: sender, profile: {} },
      message: {
        externalId: referralEventId(sender, messaging),
        type: 'TEXT',
        text: null,
        attachments: [],
        postbackPayload: null,
        sentAt,
        referral,
      },
      replyToken: null,
    };
  }
  return { kind: 'ignored', reason: 'not a message' };
}

function referralOf(value: unknown): AdReferral | null {
  const referral = obj(value);
  if (!referral) return null;
  return { adId: idOf(referral.ad_id), source: str(referral.source), ref: str(referral.ref) };
}

const WHATSAPP_STATUS: Record<string, DeliveryUpdate> = {
  sent: 'SENT',
  delivered: 'DELIVERED',
  read: 'READ',
  failed: 'FAILED',
};

function normalizeWhatsApp(payload: Json): NormalizedInbound {
  const status = obj(payload.status);
  if (status) {
    const id = str(status.id);
    const update = WHATSAPP_STATUS[str(status.status) ?? ''];
    if (!id || !update) return { kind: 'ignored', reason: 'unknown status' };
    const error = obj(arr(status.errors)[0]);
    const errorText = error ? (str(error.title) ?? str(error.message) ?? `error ${String(error.code ?? '')}`) : null;
    return { kind: 'delivery', externalMessageId: id, update, error: errorText };
  }
  const message = obj(payload.message);
  const from = idOf(message?.from);
  if (!message || !from) return { kind: 'ignored', reason: 'no message' };
  const contact = obj(payload.contact);
  const profileName = str(obj(contact?.profile)?.name);
  const kind = str(message.type) ?? 'text';
  let text: string | null = null;
  let postbackPayload: string | null = null;
  const attachments: InboundAttachment[] = [];
  switch (kind) {
    case 'text':
      text = str(obj(message.text)?.body);
      break;
    case 'interactive': {
      const interactive = obj(message.interactive);
      const reply = obj(interactive?.button_reply) ?? obj(interactive?.list_reply);
      postbackPayload = str(reply?.id);
      text = str(reply?.title);
      break;
    }
    case 'button': {
      const button = obj(message.button);
      postbackPayload = str(button?.payload);
      text = str(button?.text);
      break;
    }
    case 'image':
    case 'document':
    case 'audio':
    case 'video':
    case 'sticker': {
      const media = obj(message[kind]);
      const id = str(media?.id);
      if (id) attachments.push({ type: kind === 'document' ? 'file' : kind, url: `whatsapp:media/${id}` });
      text = str(media?.caption);
      break;
    }
    case 'location': {
      const location = obj(message.location);
      text = [str(location?.name), str(location?.address)].filter(Boolean).join(', ') || null;
      break;
    }
    default:
      return { kind: 'ignored', reason: `unsupported WhatsApp message type ${kind}` };
  }
  const context = obj(message.referral);
  return {
    kind: 'message',
    sender: { externalId: from, profile: { name: profileName, phone: `+${from}` } },
    message: {
      externalId: str(message.id),
      type: inboundTypeOf(text, attachments, postbackPayload),
      text,
      attachments,
      postbackPayload,
      sentAt: unixTime(message.timestamp),
      referral: context
        ? { adId: idOf(context.source_id), source: str(context.source_type), ref: str(context.headline) }
        : null,
    },
    replyToken: null,
  };
}
