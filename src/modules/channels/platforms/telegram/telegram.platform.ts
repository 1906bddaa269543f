import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { AppException } from 'src/core/errors/app.exception';
import {
  type DeliveryResult,
  type DeliveryTarget,
  type OutboundContent,
  PermanentDeliveryError,
} from '../../channel.types';
import { type Json, idOf, obj, str } from '../json.util';
import { PlatformHttp, PlatformRequestError } from '../platform-http.service';

export interface TelegramBot {
  readonly id: string;
  readonly username: string | null;
  readonly name: string | null;
}

/** Telegram Bot API: getMe, setWebhook/deleteWebhook, sendMessage, sendPhoto. */
@Injectable()
export class TelegramPlatform {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly http: PlatformHttp,
  ) {}

  private url(botToken: string, method: string): string {
    return `${this.config.platforms.telegramApiBaseUrl}/bot${botToken}/${method}`;
  }

  /** The bot behind a token; a refused token → 400 on `botToken`. */
  async getMe(botToken: string): Promise<TelegramBot> {
    const result = obj(await this.call(botToken, 'getMe', undefined));
    const id = idOf(result?.id);
    if (!result || !id) throw AppException.field('botToken', 'was not accepted by Telegram');
    return { id, username: str(result.username), name: str(result.first_name) };
  }

  /** Points the bot's webhook at us with the connection's secret token (sent back in X-Telegram-Bot-Api-Secret-Token). */
  async setWebhook(botToken: string, url: string, secretToken: string): Promise<void> {
    try {
      await this.http.request({
        method: 'POST',
        url: this.url(botToken, 'setWebhook'),
        body: { url, secret_token: secretToken, allowed_updates: ['message', 'callback_query'] },
      });
    } catch (error) {
      if (!(error instanceof PlatformRequestError)) throw error;
      // Usually the URL: Telegram needs a public HTTPS address (set PUBLIC_BASE_URL).
      throw AppException.validation(`Telegram refused the webhook ${url} (${error.message})`, [
        { field: 'botToken', message: `webhook ${url} was refused by Telegram: ${error.message}` },
      ]);
    }
  }

  async deleteWebhook(botToken: string): Promise<void> {
    await this.http.request({ method: 'POST', url: this.url(botToken, 'deleteWebhook'), body: {}, timeoutMs: 5_000 });
  }

  async send(target: DeliveryTarget, content: OutboundContent): Promise<DeliveryResult> {
    const token = target.connection.secrets.botToken;
    if (!token) throw new PermanentDeliveryError('The channel has no bot token');
    const chatId = target.recipientId;
    let method = 'sendMessage';
    let body: Json = { chat_id: chatId, text: content.text ?? '' };
    if (content.type === 'IMAGE' && content.imageUrl) {
      method = 'sendPhoto';
      body = { chat_id: chatId, photo: content.imageUrl, ...(content.text ? { caption: content.text } : {}) };
    } else if (content.type === 'BUTTONS') {
      body = {
        chat_id: chatId,
        text: content.text ?? '',
        reply_markup: { inline_keyboard: content.buttons.map((b) => [{ text: b.title, callback_data: b.payload }]) },
      };
    }
    const response = await this.http.request({ method: 'POST', url: this.url(token, method), body });
    const messageId = idOf(obj(obj(response.data)?.result)?.message_id);
    return { externalId: messageId ? `${chatId}:${messageId}` : null };
  }

  /** Stops the button's loading spinner in the customer's app (best effort: the press is stored anyway). */
  async answerCallbackQuery(botToken: string, callbackQueryId: string): Promise<void> {
    await this.http.request({
      method: 'POST',
      url: this.url(botToken, 'answerCallbackQuery'),
      body: { callback_query_id: callbackQueryId },
      timeoutMs: 5_000,
    });
  }

  /** A Bot API call made while connecting: any refusal is the caller's token's fault (400). */
  private async call(botToken: string, method: string, body: Json | undefined): Promise<unknown> {
    try {
      const response = await this.http.request({ method: 'POST', url: this.url(botToken, method), body: body ?? {} });
      return obj(response.data)?.result;
    } catch (error) {
      if (error instanceof PlatformRequestError)
        throw AppException.field('botToken', `was refused by Telegram (${error.message})`);
      throw error;
    }
  }
}
