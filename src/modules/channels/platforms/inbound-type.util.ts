import type { InboundAttachment, InboundMessageType } from '../channel.types';

/**
 * DESIGN §14: a postback is POSTBACK; a message with text is TEXT (attachments kept); otherwise an
 * `image` attachment makes it IMAGE and any other kind FILE.
 */
export function inboundTypeOf(
  text: string | null,
  attachments: readonly InboundAttachment[],
  postbackPayload: string | null,
): InboundMessageType {
  if (postbackPayload !== null) return 'POSTBACK';
  if (text) return 'TEXT';
  const first = attachments[0];
  if (first) return first.type.toLowerCase() === 'image' ? 'IMAGE' : 'FILE';
  return 'TEXT';
}
