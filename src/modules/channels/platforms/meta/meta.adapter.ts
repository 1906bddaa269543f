import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { AppException } from 'src/core/errors/app.exception';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ChannelDirectory } from '../../channel-directory.service';
import {
  type ChannelType,
  type ContactProfile,
  type DeliveryResult,
  type DeliveryTarget,
  type InboundEventDraft,
  META_CHANNEL_TYPES,
  type NormalizedInbound,
  type OpenedConnection,
  type OutboundContent,
} from '../../channel.types';
import type { ConnectChannelDto } from '../../dto/connect-channel.dto';
import {
  type ChannelAdapter,
  type NewConnection,
  type WebhookRequest,
  invalidSignature,
  required,
} from '../channel-adapter';
import { type Json, obj } from '../json.util';
import { headerValue, safeEqual, verifySha256Signature } from '../signature.util';
import { metaWebhookAccounts, normalizeMetaEvent, splitMetaWebhook } from './meta.parser';
import { MetaPlatform } from './meta.platform';

/** `hub.mode` arrives as a dotted key (simple parser) or nested (extended parser). */
function hubParam(query: Record<string, unknown>, name: string): unknown {
  const flat = query[`hub.${name}`];
  if (flat !== undefined) return flat;
  return obj(query.hub)?.[name];
}

/**
 * Messenger, Instagram and WhatsApp: one webhook (`/webhooks/meta`, X-Hub-Signature-256), one Graph
 * API (MetaPlatform), one payload family (meta.parser). Profiles are read for Messenger and Instagram
 * (their webhooks carry no name); WhatsApp webhooks carry the name.
 */
@Injectable()
export class MetaAdapter implements ChannelAdapter {
  readonly types = META_CHANNEL_TYPES;
  readonly webhook = 'meta';
  readonly usesReplyToken = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: ChannelDirectory,
    private readonly platform: MetaPlatform,
  ) {}

  inboundUrl(publicBaseUrl: string): string {
    return `${publicBaseUrl}/webhooks/meta`;
  }

  /**
   * The signature must verify under the app secret of every connection the POST names (its own
   * `appSecret`, else META_APP_SECRET); a POST naming no connected account must verify under
   * META_APP_SECRET. Entries of unknown accounts are ignored.
   */
  async receive({ rawBody, headers, body }: WebhookRequest): Promise<InboundEventDraft[]> {
    const signature = headerValue(headers, 'x-hub-signature-256');
    if (!rawBody || !signature) throw invalidSignature();
    const verified = new Map<string, boolean>();
    const verifies = (secret: string): boolean => {
      let ok = verified.get(secret);
      if (ok === undefined) {
        ok = verifySha256Signature(signature, secret, rawBody);
        verified.set(secret, ok);
      }
      return ok;
    };
    const globalSecret = this.config.platforms.metaAppSecret;
    const named = metaWebhookAccounts(body);
    const rows = await this.directory.findActiveByRoutingKeys(
      [...new Set(named.map((n) => n.type))],
      [...new Set(named.map((n) => n.accountId))],
    );
    const connections = new Map<string, OpenedConnection>();
    for (const account of named) {
      const row = rows.find((r) => r.type === account.type && r.routingKey === account.accountId);
      if (!row) continue;
      const connection = row.open();
      const secret = connection.secrets.appSecret ?? globalSecret;
      if (!secret || !verifies(secret)) throw invalidSignature();
      connections.set(`${account.type}:${account.accountId}`, connection);
    }
    if (connections.size === 0 && !(globalSecret && verifies(globalSecret))) throw invalidSignature();
    const drafts: InboundEventDraft[] = [];
    for (const item of splitMetaWebhook(body)) {
      const connection = connections.get(`${item.type}:${item.accountId}`);
      if (!connection) continue;
      drafts.push({ connection, senderKey: item.senderKey, externalId: item.externalId, payload: item.payload });
    }
    return drafts;
  }

  /** Meta's subscription handshake: the token must be META_VERIFY_TOKEN or a Meta connection's verifyToken. */
  async verifySubscription(query: Record<string, unknown>): Promise<string> {
    const mode = hubParam(query, 'mode');
    const token = hubParam(query, 'verify_token');
    const challenge = hubParam(query, 'challenge');
    if (mode !== 'subscribe' || typeof token !== 'string' || token.length === 0 || typeof challenge !== 'string') {
      throw AppException.forbidden('Verification failed');
    }
    const global = this.config.platforms.metaVerifyToken;
    if (global && safeEqual(token, global)) return challenge;
    if (await this.directory.isActiveVerifyToken(token)) return challenge;
    throw AppException.forbidden('Verification failed');
  }

  normalize(type: ChannelType, payload: Json): NormalizedInbound {
    return normalizeMetaEvent(type, payload);
  }

  send(target: DeliveryTarget, content: OutboundContent): Promise<DeliveryResult> {
    return this.platform.send(target, content);
  }

  async fetchProfile(connection: OpenedConnection, externalId: string): Promise<ContactProfile | null> {
    if (connection.type === 'WHATSAPP') return null;
    return this.platform.fetchProfile(connection, externalId);
  }

  async prepareConnection(_ctx: TenantContext, dto: ConnectChannelDto): Promise<NewConnection> {
    if (dto.type === 'WHATSAPP') return this.prepareWhatsApp(dto);
    if (dto.type === 'INSTAGRAM') {
      return {
        type: 'INSTAGRAM',
        name: dto.name ?? `Instagram ${required(dto.igAccountId)}`,
        config: { igAccountId: required(dto.igAccountId) },
        secrets: { accessToken: dto.accessToken, appSecret: dto.appSecret, verifyToken: dto.verifyToken },
        routingKey: required(dto.igAccountId),
      };
    }
    return {
      type: 'MESSENGER',
      name: dto.name ?? `Facebook page ${required(dto.pageId)}`,
      config: { pageId: required(dto.pageId) },
      secrets: { accessToken: dto.pageAccessToken, appSecret: dto.appSecret, verifyToken: dto.verifyToken },
      routingKey: required(dto.pageId),
    };
  }

  private async prepareWhatsApp(dto: ConnectChannelDto): Promise<NewConnection> {
    let { accessToken, phoneNumberId, wabaId } = dto;
    if (dto.embeddedSignupCode) {
      const signup = await this.platform.completeEmbeddedSignup(dto.embeddedSignupCode, {
        wabaId,
        phoneNumberId,
        appSecret: dto.appSecret,
      });
      ({ accessToken, phoneNumberId, wabaId } = signup);
    }
    return {
      type: 'WHATSAPP',
      name: dto.name ?? `WhatsApp ${required(phoneNumberId)}`,
      config: { phoneNumberId: required(phoneNumberId), wabaId: required(wabaId) },
      secrets: { accessToken, appSecret: dto.appSecret, verifyToken: dto.verifyToken },
      routingKey: required(phoneNumberId),
    };
  }
}
