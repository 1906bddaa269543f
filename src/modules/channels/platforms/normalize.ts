import type { ChannelType, NormalizedInbound } from '../channel.types';
import { normalizeCustomMessage } from './custom.parser';
import type { Json } from './json.util';
import { normalizeLineEvent } from './line.parser';
import { normalizeMetaEvent } from './meta.parser';
import { normalizeTelegramUpdate } from './telegram.parser';

/** A stored inbound event (any platform) in the platform-neutral form the processor works with. Pure. */
export function normalizeInboundEvent(type: ChannelType, payload: Json, receivedAt: Date): NormalizedInbound {
  switch (type) {
    case 'MESSENGER':
    case 'INSTAGRAM':
    case 'WHATSAPP':
      return normalizeMetaEvent(type, payload);
    case 'TELEGRAM':
      return normalizeTelegramUpdate(payload);
    case 'LINE':
      return normalizeLineEvent(payload, receivedAt);
    case 'CUSTOM':
      return normalizeCustomMessage(payload);
  }
}
