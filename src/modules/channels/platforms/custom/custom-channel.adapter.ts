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
