import type { InboundAttachment, NormalizedInbound } from '../../channel.types';
import { inboundTypeOf } from '../inbound-type.util';
import { type Json, arr, obj, str, unixTime } from '../json.util';

/** A stored Custom Channel inbound message (SPEC §2) in the platform-neutral form. */
export function normalizeCustomMessage(payload: Json): NormalizedInbound {
  const senderId = str(payload.senderId);
  if (!senderId) return { kind: 'ignored', reason: 'no senderId' };
  const attachments: InboundAttachment[] = [];
  for (const raw of arr(payload.attachments)) {
    const attachment = obj(raw);
    const type = str(attachment?.type);
    const url = str(attachment?.url);
    if (type && url) attachments.push({ type, url });
  }
  const text = str(payload.text);
  const postbackPayload = str(payload.postbackPayload);
  return {
    kind: 'message',
    sender: { externalId: senderId, profile: { name: str(payload.senderName) } },
    message: {
      externalId: str(payload.messageId),
      type: inboundTypeOf(text, attachments, postbackPayload),
      text,
      attachments,
      postbackPayload,
      sentAt: unixTime(payload.timestamp),
      referral: null,
    },
    replyToken: null,
  };
}
