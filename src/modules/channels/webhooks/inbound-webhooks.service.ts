import { Inject, Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { AppException } from 'src/core/errors/app.exception';
import { ErrorCode } from 'src/core/errors/error-codes';
import { validationException } from 'src/core/errors/validation-errors';
import { ChannelLookupRepository } from '../channel-lookup.repository';
import { ChannelSecretsService } from '../channel-secrets.service';
import type { InboundEventDraft, OpenedConnection } from '../channel.types';
import { CustomInboundMessageDto } from '../dto/custom-inbound.dto';
import type { WebhookAckResponse } from '../dto/inbound-event.dto';
import { InboundEventsService } from '../events/inbound-events.service';
import { splitLineWebhook } from '../platforms/line.parser';
import { metaWebhookAccounts, splitMetaWebhook } from '../platforms/meta.parser';
import { telegramUpdateItem } from '../platforms/telegram.parser';
import { obj, str } from '../platforms/json.util';
import { headerValue, safeEqual, sha256Hex, verifyBase64Signature, verifySha256Signature } from './signature.util';

export type Headers = Record<string, string | string[] | undefined>;

const NOTHING_STORED: WebhookAckResponse = { received: true, eventId: null, eventIds: [] };

function invalidSignature(): AppException {
  return new AppException(ErrorCode.InvalidSignature, 'The webhook signature is missing or wrong');
}

/**
 * The webhook receivers' rules (DESIGN §4.2, §4.3): find the connection the request names, verify
 * its signature on the raw bytes (constant-time), split it into events, store them and acknowledge.
 * A missing or wrong signature stores nothing. Processing happens later, in the `inbound` job.
 */
@Injectable()
export class InboundWebhooksService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly lookup: ChannelLookupRepository,
    private readonly secrets: ChannelSecretsService,
    private readonly events: InboundEventsService,
  ) {}

  /**
   * Meta (Messenger, Instagram, WhatsApp). The signature must verify under the app secret of every
   * connection the POST names (its own `appSecret`, else META_APP_SECRET); a POST naming no connected
   * account must verify under META_APP_SECRET. Entries of unknown accounts are ignored.
   */
  async receiveMeta(rawBody: Buffer | undefined, headers: Headers, body: unknown): Promise<WebhookAckResponse> {
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
    const rows = await this.lookup.findActiveByRoutingKeys(
      [...new Set(named.map((n) => n.type))],
      [...new Set(named.map((n) => n.accountId))],
    );
    const connections = new Map<string, OpenedConnection>();
    for (const account of named) {
      const row = rows.find((r) => r.type === account.type && r.routingKey === account.accountId);
      if (!row) continue;
      const connection = this.secrets.open(row);
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
    return drafts.length ? this.events.store(drafts) : NOTHING_STORED;
  }

  /** Meta's subscription handshake: the token must be META_VERIFY_TOKEN or a Meta connection's verifyToken. */
  async verifyMetaSubscription(mode: unknown, token: unknown, challenge: unknown): Promise<string> {
    if (mode !== 'subscribe' || typeof token !== 'string' || token.length === 0 || typeof challenge !== 'string') {
      throw AppException.forbidden('Verification failed');
    }
    const global = this.config.platforms.metaVerifyToken;
    if (global && safeEqual(token, global)) return challenge;
    if (await this.lookup.existsActiveVerifyTokenHash(sha256Hex(token))) return challenge;
    throw AppException.forbidden('Verification failed');
  }

  /** Telegram: the secret token header (either name) identifies the connection. One Update per request. */
  async receiveTelegram(headers: Headers, body: unknown): Promise<WebhookAckResponse> {
    const token = headerValue(headers, 'x-telegram-bot-api-secret-token', 'x-messenger-bot-api-secret-token');
    if (!token) throw invalidSignature();
    const row = await this.lookup.findActiveBySecretTokenHash(sha256Hex(token));
    if (!row) throw invalidSignature();
    const connection = this.secrets.open(row);
    const expected = connection.secrets.secretToken;
    if (!expected || !safeEqual(token, expected)) throw invalidSignature();
    const item = telegramUpdateItem(body);
    const payload = obj(body);
    if (!item || !payload) return NOTHING_STORED;
    return this.events.store([{ connection, senderKey: item.senderKey, externalId: item.externalId, payload }]);
  }

  /** LINE: `destination` names the bot; base64 HMAC of the raw body under its channel secret (either header name). */
  async receiveLine(rawBody: Buffer | undefined, headers: Headers, body: unknown): Promise<WebhookAckResponse> {
    const signature = headerValue(headers, 'x-line-signature', 'x-chat-content-signature');
    const destination = str(obj(body)?.destination);
    if (!rawBody || !signature || !destination) throw invalidSignature();
    const row = (await this.lookup.findActiveByRoutingKeys(['LINE'], [destination]))[0];
    if (!row) throw invalidSignature();
    const connection = this.secrets.open(row);
    const secret = connection.secrets.channelSecret;
    if (!secret || !verifyBase64Signature(signature, secret, rawBody)) throw invalidSignature();
    const drafts = splitLineWebhook(body).map((item) => ({
      connection,
      senderKey: item.senderKey,
      externalId: item.externalId,
      payload: item.payload,
    }));
    return drafts.length ? this.events.store(drafts) : NOTHING_STORED;
  }

  /**
   * Custom Channel: unknown (or disconnected) connection → 404; workspace not ENTERPRISE → 403
   * plan_required; then the signature (401); then the body (400).
   */
  async receiveCustom(
    id: string,
    rawBody: Buffer | undefined,
    headers: Headers,
    body: unknown,
  ): Promise<WebhookAckResponse> {
    const row = await this.lookup.findById(id);
    if (!row || row.type !== 'CUSTOM' || row.status !== 'ACTIVE') throw AppException.notFound('Channel');
    if (row.plan !== 'ENTERPRISE') {
      throw new AppException(ErrorCode.PlanRequired, 'The Custom Channel needs the ENTERPRISE plan');
    }
    const connection = this.secrets.open(row);
    const secret = connection.secrets.inboundSecret;
    const signature = headerValue(headers, 'x-service-signature');
    if (!rawBody || !secret || !verifySha256Signature(signature, secret, rawBody)) throw invalidSignature();
    const message = await validateCustomMessage(body);
    return this.events.store([
      { connection, senderKey: message.senderId, externalId: message.messageId ?? null, payload: obj(body) ?? {} },
    ]);
  }
}

async function validateCustomMessage(body: unknown): Promise<CustomInboundMessageDto> {
  const payload = obj(body);
  if (!payload) throw AppException.validation('The body must be a JSON object');
  const dto = plainToInstance(CustomInboundMessageDto, payload);
  const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true });
  if (errors.length) throw validationException(errors);
  const hasAttachments = (dto.attachments?.length ?? 0) > 0;
  if (!dto.text && !hasAttachments && dto.postbackPayload === undefined) {
    throw AppException.field('text', 'or attachments is required');
  }
  return dto;
}
