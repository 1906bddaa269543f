import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { AppException } from 'src/core/errors/app.exception';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { ChannelDirectory } from '../../channel-directory.service';
import type {
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
import { type Json, idOf, obj } from '../json.util';
import { headerValue, safeEqual, sha256Hex } from '../signature.util';
import { normalizeTelegramUpdate, telegramUpdateItem } from './telegram.parser';
import { TelegramPlatform } from './telegram.platform';

/**
 * Telegram bots: `/webhooks/telegram`, identified by the secret token we set with `setWebhook` (one
 * per connection, sent back in X-Telegram-Bot-Api-Secret-Token); one Update per request.
 */
@Injectable()
export class TelegramAdapter implements ChannelAdapter {
  private readonly logger = new Logger('Telegram');
  readonly types = ['TELEGRAM'] as const;
  readonly webhook = 'telegram';
  readonly usesReplyToken = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly directory: ChannelDirectory,
    private readonly platform: TelegramPlatform,
  ) {}

  inboundUrl(publicBaseUrl: string): string {
    return `${publicBaseUrl}/webhooks/telegram`;
  }

  /** The secret token header (either name) identifies the connection. */
  async receive({ headers, body }: WebhookRequest): Promise<InboundEventDraft[]> {
    const token = headerValue(headers, 'x-telegram-bot-api-secret-token', 'x-messenger-bot-api-secret-token');
    if (!token) throw invalidSignature();
    const row = await this.directory.findActiveBySecretToken(token);
    if (!row) {
      // DESIGN §4.1: inbound to a disconnected connection → 404; an unknown token stays 401.
      if (await this.directory.isDisconnectedSecretToken(token)) throw AppException.notFound('Channel');
      throw invalidSignature();
    }
    const connection = row.open();
    const expected = connection.secrets.secretToken;
    if (!expected || !safeEqual(token, expected)) throw invalidSignature();
    const item = telegramUpdateItem(body);
    const payload = obj(body);
    if (!item || !payload) return [];
    this.answerCallback(connection.secrets.botToken, payload, connection.id);
    return [{ connection, senderKey: item.senderKey, externalId: item.externalId, payload }];
  }

  /**
   * A button press (`callback_query`) is answered at once with `answerCallbackQuery` so the
   * customer's app stops its spinner; not awaited (the webhook is acknowledged without waiting for
   * Telegram), failures are only logged. The press itself is stored and runs the pipeline (flows).
   */
  private answerCallback(botToken: string | undefined, payload: Json, channelId: string): void {
    const id = idOf(obj(payload.callback_query)?.id);
    if (!id || !botToken) return;
    this.platform.answerCallbackQuery(botToken, id).catch((error: unknown) => {
      this.logger.warn({ err: error, channelId }, 'answerCallbackQuery failed');
    });
  }

  normalize(_type: string, payload: Json): NormalizedInbound {
    return normalizeTelegramUpdate(payload);
  }

  send(target: DeliveryTarget, content: OutboundContent): Promise<DeliveryResult> {
    return this.platform.send(target, content);
  }

  /** getMe, then setWebhook with a secret token unique to this connection (the header that identifies the bot). */
  async prepareConnection(_ctx: TenantContext, dto: ConnectChannelDto): Promise<NewConnection> {
    const botToken = required(dto.botToken);
    const bot = await this.platform.getMe(botToken);
    // Checked before setWebhook: pointing the bot at a new secret would break the connection that has it.
    if ((await this.directory.findActiveByRoutingKeys(['TELEGRAM'], [bot.id])).length > 0) {
      throw AppException.conflict('This account is already connected');
    }
    const secretToken = randomBytes(32).toString('base64url');
    await this.platform.setWebhook(botToken, this.inboundUrl(this.config.publicBaseUrl), secretToken);
    return {
      type: 'TELEGRAM',
      name: dto.name ?? (bot.username ? `@${bot.username}` : (bot.name ?? `Telegram bot ${bot.id}`)),
      config: { botId: bot.id, ...(bot.username ? { botUsername: bot.username } : {}) },
      secrets: { botToken, secretToken },
      routingKey: bot.id,
      secretTokenHash: sha256Hex(secretToken),
    };
  }

  /** The bot's webhook is removed (best effort: the connection is disconnected anyway). */
  async onDisconnect(connection: OpenedConnection): Promise<void> {
    const token = connection.secrets.botToken;
    if (!token) return;
    await this.platform.deleteWebhook(token).catch((error: unknown) => {
      this.logger.warn({ err: error, channelId: connection.id }, 'Could not remove the Telegram webhook');
    });
  }
}
