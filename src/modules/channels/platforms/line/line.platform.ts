import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { AppException } from 'src/core/errors/app.exception';
import {
  type ContactProfile,
  type DeliveryResult,
  type DeliveryTarget,
  type OpenedConnection,
  type OutboundContent,
  PermanentDeliveryError,
} from '../../channel.types';
import { type Json, obj, str } from '../json.util';
import { PlatformHttp, PlatformRequestError } from '../platform-http.service';

export interface LineBot {
  /** The bot's user id: the `destination` of its webhooks. */
  readonly userId: string;
  readonly basicId: string | null;
  readonly displayName: string | null;
}

/** LINE Messaging API: bot info, reply (with a fresh reply token) or push, user profiles. */
@Injectable()
export class LinePlatform {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly http: PlatformHttp,
  ) {}

  private get base(): string {
    return this.config.platforms.lineApiBaseUrl;
  }

  async botInfo(channelAccessToken: string): Promise<LineBot> {
    let data: unknown;
    try {
      data = (
        await this.http.request({
          method: 'GET',
          url: `${this.base}/v2/bot/info`,
          headers: { Authorization: `Bearer ${channelAccessToken}` },
        })
      ).data;
    } catch (error) {
      if (error instanceof PlatformRequestError) {
        throw AppException.field('channelAccessToken', `was refused by LINE (${error.message})`);
      }
      throw error;
    }
    const body = obj(data);
    const userId = str(body?.userId);
    if (!body || !userId) throw AppException.field('channelAccessToken', 'did not identify a LINE bot');
    return { userId, basicId: str(body.basicId), displayName: str(body.displayName) };
  }

  /** Replies with the fresh reply token when there is one (falling back to push if LINE refuses it), else pushes. */
  async send(target: DeliveryTarget, content: OutboundContent): Promise<DeliveryResult> {
    const token = target.connection.secrets.accessToken;
    if (!token) throw new PermanentDeliveryError('The channel has no access token');
    const headers = { Authorization: `Bearer ${token}` };
    const messages = lineMessages(content);
    if (target.replyToken) {
      try {
        await this.http.request({
          method: 'POST',
          url: `${this.base}/v2/bot/message/reply`,
          headers,
          body: { replyToken: target.replyToken, messages },
        });
        return { externalId: null };
      } catch (error) {
        if (!(error instanceof PlatformRequestError) || error.status !== 400) throw error;
        // An expired or used reply token: push instead.
      }
    }
    await this.http.request({
      method: 'POST',
      url: `${this.base}/v2/bot/message/push`,
      headers,
      body: { to: target.recipientId, messages },
    });
    return { externalId: null };
  }

  async fetchProfile(connection: OpenedConnection, userId: string): Promise<ContactProfile | null> {
    const token = connection.secrets.accessToken;
    if (!token) return null;
    const response = await this.http.request({
      method: 'GET',
      url: `${this.base}/v2/bot/profile/${encodeURIComponent(userId)}`,
      headers: { Authorization: `Bearer ${token}` },
      timeoutMs: 3_000,
    });
    const body = obj(response.data);
    return body ? { name: str(body.displayName), avatarUrl: str(body.pictureUrl) } : null;
  }
}

const LINE_TEMPLATE_ACTIONS = 4;
const LINE_QUICK_REPLIES = 13;

function lineMessages(content: OutboundContent): Json[] {
  if (content.type === 'IMAGE' && content.imageUrl) {
    const image = { type: 'image', originalContentUrl: content.imageUrl, previewImageUrl: content.imageUrl };
    return content.text ? [{ type: 'text', text: content.text }, image] : [image];
  }
  if (content.type === 'BUTTONS') {
    const text = content.text ?? '';
    const action = (b: { title: string; payload: string }) => ({
      type: 'postback',
      label: b.title.slice(0, 20),
      data: b.payload,
      displayText: b.title,
    });
    // A buttons template holds at most 4 actions (text ≤ 160); more become quick reply buttons (≤ 13).
    if (content.buttons.length <= LINE_TEMPLATE_ACTIONS && text.length <= 160) {
      return [
        {
          type: 'template',
          altText: text.slice(0, 400) || 'Options',
          template: { type: 'buttons', text, actions: content.buttons.map(action) },
        },
      ];
    }
    return [
      {
        type: 'text',
        text: text || 'Options',
        quickReply: {
          items: content.buttons.slice(0, LINE_QUICK_REPLIES).map((b) => ({ type: 'action', action: action(b) })),
        },
      },
    ];
  }
  return [{ type: 'text', text: content.text ?? '' }];
}
