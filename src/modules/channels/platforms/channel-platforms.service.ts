import { Injectable } from '@nestjs/common';
import { AppException } from 'src/core/errors/app.exception';
import type {
  ContactProfile,
  DeliveryResult,
  InboundEventDraft,
  NormalizedInbound,
  OpenedConnection,
  OutboundContent,
} from '../channel.types';
import type { WebhookRequest } from './channel-adapter';
import { ChannelAdapters } from './channel-adapters';
import { ChannelReplyTokensRepository } from './channel-reply-tokens.repository';
import type { Json } from './json.util';

/**
 * What other modules do with a platform, whichever it is: receive its webhooks, normalise a stored
 * event, remember the reply context of an inbound message, read a sender's profile, send a reply.
 * Each call goes to the connection's ChannelAdapter; nothing here (or in the callers) branches on
 * the channel type.
 */
@Injectable()
export class ChannelPlatforms {
  constructor(
    private readonly adapters: ChannelAdapters,
    private readonly replyTokens: ChannelReplyTokensRepository,
  ) {}

  /** Verifies a request to `/webhooks/<webhook>` (or the Custom Channel's URL) and splits it into events to store. */
  receive(webhook: string, request: WebhookRequest): Promise<InboundEventDraft[]> {
    return this.adapters.forWebhook(webhook).receive(request);
  }

  /** The adapter's lean `receive` (the ordinary valid request only); null: use `receive`. */
  receiveFast(webhook: string, request: WebhookRequest): Promise<InboundEventDraft[] | null> {
    const adapter = this.adapters.forWebhook(webhook);
    return adapter.receiveFast ? adapter.receiveFast(request) : Promise.resolve(null);
  }

  /** `GET /webhooks/<webhook>`: the platform's subscription handshake; 404 when it has none. */
  async verifySubscription(webhook: string, query: Record<string, unknown>): Promise<string> {
    const adapter = this.adapters.forWebhook(webhook);
    if (!adapter.verifySubscription) throw AppException.notFound('Webhook');
    return adapter.verifySubscription(query);
  }

  /** A stored inbound event in the platform-neutral form. Pure. */
  normalize(connection: Pick<OpenedConnection, 'type'>, payload: Json, receivedAt: Date): NormalizedInbound {
    return this.adapters.forType(connection.type).normalize(connection.type, payload, receivedAt);
  }

  /**
   * After an inbound message is stored (inside its transaction): keeps what the platform needs to
   * answer it (LINE's reply token, one use, while fresh).
   */
  async rememberReplyContext(connection: OpenedConnection, inbound: NormalizedInbound): Promise<void> {
    if (inbound.kind !== 'message' || !inbound.replyToken) return;
    if (!this.adapters.forType(connection.type).usesReplyToken) return;
    const { token, expiresAt } = inbound.replyToken;
    await this.replyTokens.keep(connection.id, inbound.sender.externalId, token, expiresAt);
  }

  /** The customer's profile, for platforms whose webhooks carry no name; null for the others (no call made). */
  async fetchProfile(connection: OpenedConnection, externalId: string): Promise<ContactProfile | null> {
    const adapter = this.adapters.forType(connection.type);
    return adapter.fetchProfile ? adapter.fetchProfile(connection, externalId) : null;
  }

  /** Sends a reply to the customer (a fresh reply token is used once, where the platform has them). */
  async send(connection: OpenedConnection, recipientId: string, content: OutboundContent): Promise<DeliveryResult> {
    const adapter = this.adapters.forType(connection.type);
    const replyToken = adapter.usesReplyToken ? await this.replyTokens.claim(connection.id, recipientId) : null;
    return adapter.send({ connection, recipientId, replyToken }, content);
  }
}
