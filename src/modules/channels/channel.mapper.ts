import type { ChannelConnectionEntity } from './channel-connection.entity';
import type { ChannelType } from './channel.types';
import type { ChannelResponse } from './dto/channel.response';

/** The URL a connection receives inbound events on. */
export function inboundUrlOf(publicBaseUrl: string, type: ChannelType, id: string): string {
  switch (type) {
    case 'MESSENGER':
    case 'INSTAGRAM':
    case 'WHATSAPP':
      return `${publicBaseUrl}/webhooks/meta`;
    case 'TELEGRAM':
      return `${publicBaseUrl}/webhooks/telegram`;
    case 'LINE':
      return `${publicBaseUrl}/webhooks/line`;
    case 'CUSTOM':
      return `${publicBaseUrl}/custom-channel/${id}/inbound`;
  }
}

export function toChannelResponse(c: ChannelConnectionEntity, publicBaseUrl: string): ChannelResponse {
  return {
    id: c.id,
    type: c.type,
    name: c.name,
    status: c.status,
    config: c.config,
    inboundUrl: inboundUrlOf(publicBaseUrl, c.type, c.id),
    hasOutboundSecret: c.hasOutboundSecret,
    createdAt: c.createdAt.toISOString(),
    disconnectedAt: c.disconnectedAt?.toISOString() ?? null,
  };
}
