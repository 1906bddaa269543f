import type { ChannelConnectionEntity } from './channel-connection.entity';
import type { ChannelResponse } from './dto/channel.response';

/** `inboundUrl`: where the connection's platform posts (its adapter knows). */
export function toChannelResponse(c: ChannelConnectionEntity, inboundUrl: string): ChannelResponse {
  return {
    id: c.id,
    type: c.type,
    name: c.name,
    status: c.status,
    config: c.config,
    inboundUrl,
    hasOutboundSecret: c.hasOutboundSecret,
    createdAt: c.createdAt.toISOString(),
    disconnectedAt: c.disconnectedAt?.toISOString() ?? null,
  };
}
