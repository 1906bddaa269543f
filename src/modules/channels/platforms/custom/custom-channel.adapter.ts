import { Injectable } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { AppException } from 'src/core/errors/app.exception';
import { ErrorCode } from 'src/core/errors/error-codes';
import { validationException } from 'src/core/errors/validation-errors';
import { OutboundHttp } from 'src/core/http/outbound-http';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ChannelDirectory } from '../../channel-directory.service';
import type {
  DeliveryResult,
  DeliveryTarget,
  InboundEventDraft,
  NormalizedInbound,
  OutboundContent,
} from '../../channel.types';
import type { ConnectChannelDto } from '../../dto/connect-channel.dto';
import { CustomInboundMessageDto } from '../../dto/custom-inbound.dto';
import {
  type ChannelAdapter,
  type NewConnection,
  type WebhookRequest,
  invalidSignature,
  required,
} from '../channel-adapter';
import { type Json, obj } from '../json.util';
import { headerValue, verifySha256Signature } from '../signature.util';
import { normalizeCustomMessage } from './custom.parser';
import { CustomChannelPlatform } from './custom-channel.platform';

function planRequired(): AppException {
  return new AppException(ErrorCode.PlanRequired, 'The Custom Channel needs the ENTERPRISE plan');
}

/**
 * The Custom Channel (SPEC §2, ENTERPRISE): `/custom-channel/:id/inbound` names the connection,
 * X-Service-Signature signs the raw body with its inbound secret; replies are POSTed to its outbound
 * URL (signed when it has an outbound secret).
 */
@Injectable()
export class CustomChannelAdapter implements ChannelAdapter {
  readonly types = ['CUSTOM'] as const;
  readonly webhook = 'custom';
  readonly usesReplyToken = false;

  constructor(
    private readonly directory: ChannelDirectory,
    private readonly platform: CustomChannelPlatform,
    private readonly urls: OutboundHttp,
  ) {}

  inboundUrl(publicBaseUrl: string, connectionId: string): string {
    return `${publicBaseUrl}/custom-channel/${connectionId}/inbound`;
  }

  /**
   * Unknown (or disconnected) connection → 404; workspace not ENTERPRISE → 403 plan_required; then
   * the signature (401); then the body (400).
   */
  async receive({ rawBody, headers, body, connectionId }: WebhookRequest): Promise<InboundEventDraft[]> {
    const row = connectionId ? await this.directory.findById(connectionId) : null;
    if (!row || row.type !== 'CUSTOM' || row.status !== 'ACTIVE') throw AppException.notFound('Channel');
    if (row.plan !== 'ENTERPRISE') throw planRequired();
    const connection = row.open();
    const secret = connection.secrets.inboundSecret;
    const signature = headerValue(headers, 'x-service-signature');
    if (!rawBody || !secret || !verifySha256Signature(signature, secret, rawBody)) throw invalidSignature();
    const message = await validateCustomMessage(body);
    return [
      { connection, senderKey: message.senderId, externalId: message.messageId ?? null, payload: obj(body) ?? {} },
    ];
  }

  /**
   * The acknowledgement's lean path (issue 16): `receive` for the ordinary request only — a known
   * ACTIVE Custom connection of an ENTERPRISE workspace (cached for a moment, see ChannelDirectory),
   * a valid signature on the raw bytes and a body `plainCustomMessage` is sure is valid. Null for
   * anything else, and `receive` then gives the exact answer (404, 403, 401, 400).
   */
  async receiveFast({ rawBody, headers, body, connectionId }: WebhookRequest): Promise<InboundEventDraft[] | null> {
    if (!connectionId || !rawBody) return null;
    const found = await this.directory.findCached(connectionId);
    if (!found) return null;
    const { row, connection } = found;
    if (row.type !== 'CUSTOM' || row.status !== 'ACTIVE' || row.plan !== 'ENTERPRISE') return null;
    const secret = connection.secrets.inboundSecret;
    const signature = headerValue(headers, 'x-service-signature');
    if (!secret || !verifySha256Signature(signature, secret, rawBody)) return null;
    const message = plainCustomMessage(body);
    if (!message) return null;
    return [{ connection, senderKey: message.senderId, externalId: message.messageId ?? null, payload: message }];
  }

  normalize(_type: string, payload: Json): NormalizedInbound {
    return normalizeCustomMessage(payload);
  }

  send(target: DeliveryTarget, content: OutboundContent): Promise<DeliveryResult> {
    return this.platform.send(target, content);
  }

  async prepareConnection(ctx: TenantContext, dto: ConnectChannelDto): Promise<NewConnection> {
    if (ctx.plan !== 'ENTERPRISE') throw planRequired();
    const outboundUrl = required(dto.outboundUrl);
    await this.urls.assertAllowedField(outboundUrl, 'outboundUrl');
    return {
      type: 'CUSTOM',
      name: dto.name ?? required(dto.displayName),
      config: { outboundUrl },
      secrets: { inboundSecret: dto.inboundSecret, outboundSecret: dto.outboundSecret },
      routingKey: null,
    };
  }
}

/** The DTO's string fields and their MaxLength (CustomInboundMessageDto); `attachments` is left to the DTO. */
const PLAIN_STRINGS: Readonly<Record<string, number>> = {
  senderId: 256,
  senderName: 200,
  text: 20_000,
  postbackPayload: 1000,
  messageId: 256,
};

/**
 * A body CustomInboundMessageDto certainly accepts, without class-validator: a plain object with
 * only the DTO's string fields (within their lengths in UTF-16 units, never fewer than
 * class-validator counts), senderId and messageId non-empty, an optional finite timestamp ≥ 0, and
 * a text or postback. Null when unsure (attachments, null values, anything else): the caller then
 * validates with the DTO, which also words the error.
 */
export function plainCustomMessage(body: unknown): (Json & { senderId: string; messageId?: string }) | null {
  if (typeof body !== 'object' || body === null || Object.getPrototypeOf(body) !== Object.prototype) return null;
  const payload = body as Record<string, unknown>;
  let content = false;
  for (const key in payload) {
    if (!Object.prototype.hasOwnProperty.call(payload, key)) return null;
    const value = payload[key];
    if (key === 'timestamp') {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return null;
      continue;
    }
    const max = Object.prototype.hasOwnProperty.call(PLAIN_STRINGS, key) ? PLAIN_STRINGS[key] : undefined;
    if (max === undefined || typeof value !== 'string' || value.length > max) return null;
    if (value.length === 0 && (key === 'senderId' || key === 'messageId')) return null;
    if ((key === 'text' && value.length > 0) || key === 'postbackPayload') content = true;
  }
  if (typeof payload.senderId !== 'string' || !content) return null;
  return payload as Json & { senderId: string; messageId?: string };
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
