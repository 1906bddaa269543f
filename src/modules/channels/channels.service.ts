import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { AppException } from 'src/core/errors/app.exception';
import { ErrorCode } from 'src/core/errors/error-codes';
import { OutboundUrlService } from 'src/core/http/outbound-url.service';
import { type Page, mapPage } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ChannelLookupRepository } from './channel-lookup.repository';
import { toChannelResponse } from './channel.mapper';
import type { ChannelConfig, ChannelSecrets, ChannelType, OpenedConnection } from './channel.types';
import { ChannelSecretsService } from './channel-secrets.service';
import { ChannelsRepository } from './channels.repository';
import type { ChannelResponse } from './dto/channel.response';
import type { ConnectChannelDto, ListChannelsQuery } from './dto/connect-channel.dto';
import { LinePlatform } from './platforms/line.platform';
import { MetaPlatform } from './platforms/meta.platform';
import { TelegramPlatform } from './platforms/telegram.platform';
import { sha256Hex } from './webhooks/signature.util';

interface NewConnection {
  readonly type: ChannelType;
  readonly name: string;
  readonly config: ChannelConfig;
  readonly secrets: ChannelSecrets;
  readonly routingKey: string | null;
  readonly secretTokenHash?: string | null;
}

/** Channel connections (DESIGN §4.1): connect per type, list, disconnect, and open secrets for delivery. */
@Injectable()
export class ChannelsService {
  private readonly logger = new Logger('Channels');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly channels: ChannelsRepository,
    private readonly lookup: ChannelLookupRepository,
    private readonly secrets: ChannelSecretsService,
    private readonly urls: OutboundUrlService,
    private readonly meta: MetaPlatform,
    private readonly telegram: TelegramPlatform,
    private readonly line: LinePlatform,
  ) {}

  async list(_ctx: TenantContext, query: ListChannelsQuery): Promise<Page<ChannelResponse>> {
    const page = await this.channels.findPage(query, { type: query.type, status: query.status });
    return mapPage(page, (c) => toChannelResponse(c, this.config.publicBaseUrl));
  }

  async get(_ctx: TenantContext, id: string): Promise<ChannelResponse> {
    return toChannelResponse(await this.channels.getById(id), this.config.publicBaseUrl);
  }

  async connect(ctx: TenantContext, dto: ConnectChannelDto): Promise<ChannelResponse> {
    const connection = await this.prepare(ctx, dto);
    const row = await this.channels.create({
      type: connection.type,
      name: connection.name,
      status: 'ACTIVE',
      config: connection.config,
      secrets: this.secrets.seal(connection.secrets),
      routingKey: connection.routingKey,
      secretTokenHash: connection.secretTokenHash ?? null,
      verifyTokenHash: connection.secrets.verifyToken ? sha256Hex(connection.secrets.verifyToken) : null,
      hasOutboundSecret: Boolean(connection.secrets.outboundSecret),
    });
    return toChannelResponse(row, this.config.publicBaseUrl);
  }

  /** Disconnects: secrets erased, conversations kept; later inbound to it is refused. A Telegram bot's webhook is removed. */
  async disconnect(_ctx: TenantContext, id: string): Promise<void> {
    const row = await this.channels.getById(id);
    if (row.status !== 'ACTIVE') throw AppException.notFound('Channel');
    if (row.type === 'TELEGRAM') {
      const token = this.secrets.open(row).secrets.botToken;
      if (token) {
        await this.telegram.deleteWebhook(token).catch((error: unknown) => {
          this.logger.warn({ err: error, channelId: id }, 'Could not remove the Telegram webhook');
        });
      }
    }
    await this.channels.disconnect(id);
  }

  /** A connection of the current workspace with its secrets (delivery, processing). */
  async getOpened(id: string): Promise<OpenedConnection> {
    return this.secrets.open(await this.channels.getById(id));
  }

  private async prepare(ctx: TenantContext, dto: ConnectChannelDto): Promise<NewConnection> {
    switch (dto.type) {
      case 'CUSTOM':
        return this.prepareCustom(ctx, dto);
      case 'MESSENGER':
        return {
          type: 'MESSENGER',
          name: dto.name ?? `Facebook page ${required(dto.pageId)}`,
          config: { pageId: required(dto.pageId) },
          secrets: { accessToken: dto.pageAccessToken, appSecret: dto.appSecret, verifyToken: dto.verifyToken },
          routingKey: required(dto.pageId),
        };
      case 'INSTAGRAM':
        return {
          type: 'INSTAGRAM',
          name: dto.name ?? `Instagram ${required(dto.igAccountId)}`,
          config: { igAccountId: required(dto.igAccountId) },
          secrets: { accessToken: dto.accessToken, appSecret: dto.appSecret, verifyToken: dto.verifyToken },
          routingKey: required(dto.igAccountId),
        };
      case 'WHATSAPP':
        return this.prepareWhatsApp(dto);
      case 'TELEGRAM':
        return this.prepareTelegram(dto);
      case 'LINE': {
        const accessToken = required(dto.channelAccessToken);
        const bot = await this.line.botInfo(accessToken);
        return {
          type: 'LINE',
          name: dto.name ?? bot.displayName ?? `LINE ${bot.basicId ?? bot.userId}`,
          config: { lineDestination: bot.userId, ...(bot.basicId ? { lineBasicId: bot.basicId } : {}) },
          secrets: { channelSecret: dto.channelSecret, accessToken },
          routingKey: bot.userId,
        };
      }
    }
  }

  private async prepareCustom(ctx: TenantContext, dto: ConnectChannelDto): Promise<NewConnection> {
    if (ctx.plan !== 'ENTERPRISE') {
      throw new AppException(ErrorCode.PlanRequired, 'The Custom Channel needs the ENTERPRISE plan');
    }
    const outboundUrl = required(dto.outboundUrl);
    await this.urls.assertAllowed(outboundUrl, 'outboundUrl');
    return {
      type: 'CUSTOM',
      name: dto.name ?? required(dto.displayName),
      config: { outboundUrl },
      secrets: { inboundSecret: dto.inboundSecret, outboundSecret: dto.outboundSecret },
      routingKey: null,
    };
  }

  private async prepareWhatsApp(dto: ConnectChannelDto): Promise<NewConnection> {
    let { accessToken, phoneNumberId, wabaId } = dto;
    if (dto.embeddedSignupCode) {
      const signup = await this.meta.completeEmbeddedSignup(dto.embeddedSignupCode, {
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

  /** getMe, then setWebhook with a secret token unique to this connection (the header that identifies the bot). */
  private async prepareTelegram(dto: ConnectChannelDto): Promise<NewConnection> {
    const botToken = required(dto.botToken);
    const bot = await this.telegram.getMe(botToken);
    // Checked before setWebhook: pointing the bot at a new secret would break the connection that has it.
    if ((await this.lookup.findActiveByRoutingKeys(['TELEGRAM'], [bot.id])).length > 0) {
      throw AppException.conflict('This account is already connected');
    }
    const secretToken = randomBytes(32).toString('base64url');
    await this.telegram.setWebhook(botToken, `${this.config.publicBaseUrl}/webhooks/telegram`, secretToken);
    return {
      type: 'TELEGRAM',
      name: dto.name ?? (bot.username ? `@${bot.username}` : (bot.name ?? `Telegram bot ${bot.id}`)),
      config: { botId: bot.id, ...(bot.username ? { botUsername: bot.username } : {}) },
      secrets: { botToken, secretToken },
      routingKey: bot.id,
      secretTokenHash: sha256Hex(secretToken),
    };
  }
}

/** A field the DTO's per-type validation already guaranteed. */
function required(value: string | undefined): string {
  if (value === undefined) throw AppException.validation('A required field is missing');
  return value;
}
