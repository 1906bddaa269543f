import { Injectable } from '@nestjs/common';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ChannelDirectory } from '../../channel-directory.service';
import type {
  ContactProfile,
  DeliveryResult,
  DeliveryTarget,
  InboundEventDraft,
  NormalizedInbound,
  OpenedConnection,
  OutboundContent,
} from '../../channel.types';
import type { ConnectChannelDto } from '../../dto/connect-channel.dto';
import {
  type ChannelAdapter,
  type NewConnection,
  type WebhookRequest,
  invalidSignature,
  required,
} from '../channel-adapter';
import { type Json, obj, str } from '../json.util';
import { headerValue, verifyBase64Signature } from '../signature.util';
import { normalizeLineEvent, splitLineWebhook } from './line.parser';
import { LinePlatform } from './line.platform';

/**
 * LINE bots: `/webhooks/line`, `destination` names the bot, base64 HMAC of the raw body under its
 * channel secret. Replies use the reply token of the customer's last message while it is fresh (kept
 * by ChannelPlatforms, one use), then push. Profiles are read (webhooks carry no name).
 */
@Injectable()
export class LineAdapter implements ChannelAdapter {
  readonly types = ['LINE'] as const;
  readonly webhook = 'line';
  readonly usesReplyToken = true;

  constructor(
    private readonly directory: ChannelDirectory,
    private readonly platform: LinePlatform,
  ) {}

  inboundUrl(publicBaseUrl: string): string {
    return `${publicBaseUrl}/webhooks/line`;
  }

  /** Either signature header name. */
  async receive({ rawBody, headers, body }: WebhookRequest): Promise<InboundEventDraft[]> {
    const signature = headerValue(headers, 'x-line-signature', 'x-chat-content-signature');
    const destination = str(obj(body)?.destination);
    if (!rawBody || !signature || !destination) throw invalidSignature();
    const row = (await this.directory.findActiveByRoutingKeys(['LINE'], [destination]))[0];
    if (!row) throw invalidSignature();
    const connection = row.open();
    const secret = connection.secrets.channelSecret;
    if (!secret || !verifyBase64Signature(signature, secret, rawBody)) throw invalidSignature();
    return splitLineWebhook(body).map((item) => ({
      connection,
      senderKey: item.senderKey,
      externalId: item.externalId,
      payload: item.payload,
    }));
  }

  normalize(_type: string, payload: Json, receivedAt: Date): NormalizedInbound {
    return normalizeLineEvent(payload, receivedAt);
  }

  send(target: DeliveryTarget, content: OutboundContent): Promise<DeliveryResult> {
    return this.platform.send(target, content);
  }

  fetchProfile(connection: OpenedConnection, externalId: string): Promise<ContactProfile | null> {
    return this.platform.fetchProfile(connection, externalId);
  }

  async prepareConnection(_ctx: TenantContext, dto: ConnectChannelDto): Promise<NewConnection> {
    const accessToken = required(dto.channelAccessToken);
    const bot = await this.platform.botInfo(accessToken);
    return {
      type: 'LINE',
      name: dto.name ?? bot.displayName ?? `LINE ${bot.basicId ?? bot.userId}`,
      config: { lineDestination: bot.userId, ...(bot.basicId ? { lineBasicId: bot.basicId } : {}) },
      secrets: { channelSecret: dto.channelSecret, accessToken },
      routingKey: bot.userId,
    };
  }
}
