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
import { type Json, arr, idOf, obj, str } from '../json.util';
import { PlatformHttp, PlatformRequestError } from '../platform-http.service';

export interface WhatsAppSignup {
  readonly accessToken: string;
  readonly wabaId: string;
  readonly phoneNumberId: string;
}

/**
 * Meta Graph API: the Send API for Messenger and Instagram (`/me/messages`), the WhatsApp Cloud API
 * (`/{phone-number-id}/messages`), profile look-ups, and the WhatsApp embedded-signup exchange.
 * Tokens travel in the Authorization header, never in URLs.
 */
@Injectable()
export class MetaPlatform {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly http: PlatformHttp,
  ) {}

  private get base(): string {
    return this.config.platforms.metaGraphBaseUrl;
  }

  async send(target: DeliveryTarget, content: OutboundContent): Promise<DeliveryResult> {
    const token = target.connection.secrets.accessToken;
    if (!token) throw new PermanentDeliveryError('The channel has no access token');
    const headers = { Authorization: `Bearer ${token}` };
    if (target.connection.type === 'WHATSAPP') {
      const phoneNumberId = target.connection.config.phoneNumberId;
      if (!phoneNumberId) throw new PermanentDeliveryError('The channel has no phone number id');
      const response = await this.http.request({
        method: 'POST',
        url: `${this.base}/${encodeURIComponent(phoneNumberId)}/messages`,
        headers,
        body: whatsAppBody(target.recipientId, content),
      });
      return { externalId: str(obj(arr(obj(response.data)?.messages)[0])?.id) };
    }
    let externalId: string | null = null;
    for (const message of messengerMessages(target.connection.type, content)) {
      const response = await this.http.request({
        method: 'POST',
        url: `${this.base}/me/messages`,
        headers,
        body: { recipient: { id: target.recipientId }, messaging_type: 'RESPONSE', message },
      });
      externalId = str(obj(response.data)?.message_id) ?? externalId;
    }
    return { externalId };
  }

  /** Messenger / Instagram user profile (the webhook carries no name). Null when it cannot be read. */
  async fetchProfile(connection: OpenedConnection, userId: string): Promise<ContactProfile | null> {
    const token = connection.secrets.accessToken;
    if (!token) return null;
    const fields = connection.type === 'MESSENGER' ? 'first_name,last_name,profile_pic' : 'name,username,profile_pic';
    const response = await this.http.request({
      method: 'GET',
      url: `${this.base}/${encodeURIComponent(userId)}?fields=${fields}`,
      headers: { Authorization: `Bearer ${token}` },
      timeoutMs: 3_000,
    });
    const body = obj(response.data);
    if (!body) return null;
    const name =
      [str(body.first_name), str(body.last_name)].filter(Boolean).join(' ') || str(body.name) || str(body.username);
    return { name: name || null, avatarUrl: str(body.profile_pic) };
  }

  /**
   * WhatsApp embedded signup: exchanges the code for a business token, then finds the WhatsApp
   * Business Account (from the token's granular scopes) and its phone number unless the client sent
   * them, and subscribes our app to the account's webhooks.
   */
  async completeEmbeddedSignup(
    code: string,
    hint: { wabaId?: string; phoneNumberId?: string; appSecret?: string },
  ): Promise<WhatsAppSignup> {
    const appId = this.config.platforms.metaAppId;
    const appSecret = hint.appSecret ?? this.config.platforms.metaAppSecret;
    if (!appId || !appSecret) {
      throw AppException.field('embeddedSignupCode', 'needs META_APP_ID and META_APP_SECRET to be configured');
    }
    const exchange = await this.call(
      `${this.base}/oauth/access_token?client_id=${encodeURIComponent(appId)}&client_secret=${encodeURIComponent(appSecret)}&code=${encodeURIComponent(code)}`,
      'embeddedSignupCode',
    );
    const accessToken = str(obj(exchange)?.access_token);
    if (!accessToken) throw AppException.field('embeddedSignupCode', 'was not accepted by Meta');
    const auth = { Authorization: `Bearer ${accessToken}` };
    let wabaId = hint.wabaId ?? null;
    if (!wabaId) {
      const debug = await this.call(
        `${this.base}/debug_token?input_token=${encodeURIComponent(accessToken)}`,
        'embeddedSignupCode',
        { Authorization: `Bearer ${appId}|${appSecret}` },
      );
      const scopes = arr(obj(obj(debug)?.data)?.granular_scopes).map(obj);
      const management = scopes.find((s) => s && s.scope === 'whatsapp_business_management');
      wabaId = idOf(arr(management?.target_ids)[0]);
      if (!wabaId) throw AppException.field('wabaId', 'could not be found for this signup; send it explicitly');
    }
    let phoneNumberId = hint.phoneNumberId ?? null;
    if (!phoneNumberId) {
      const numbers = await this.call(`${this.base}/${encodeURIComponent(wabaId)}/phone_numbers`, 'wabaId', auth);
      phoneNumberId = idOf(obj(arr(obj(numbers)?.data)[0])?.id);
      if (!phoneNumberId)
        throw AppException.field('phoneNumberId', 'could not be found for this signup; send it explicitly');
    }
    await this.call(`${this.base}/${encodeURIComponent(wabaId)}/subscribed_apps`, 'wabaId', auth, 'POST');
    return { accessToken, wabaId, phoneNumberId };
  }

  private async call(
    url: string,
    field: string,
    headers: Record<string, string> = {},
    method: 'GET' | 'POST' = 'GET',
  ): Promise<unknown> {
    try {
      return (await this.http.request({ method, url, headers })).data;
    } catch (error) {
      if (error instanceof PlatformRequestError)
        throw AppException.field(field, `was refused by Meta (${error.message})`);
      throw error;
    }
  }
}

const MESSENGER_TEMPLATE_BUTTONS = 3;
const MAX_QUICK_REPLIES = 13;
const WHATSAPP_REPLY_BUTTONS = 3;
const WHATSAPP_BUTTON_TITLE = 20;
const WHATSAPP_LIST_ROWS = 10;
const WHATSAPP_ROW_TITLE = 24;

/** Messenger and Instagram message objects for one reply (an image with a caption is two messages). */
function messengerMessages(type: string, content: OutboundContent): Json[] {
  if (content.type === 'IMAGE' && content.imageUrl) {
    const image = { attachment: { type: 'image', payload: { url: content.imageUrl, is_reusable: true } } };
    return content.text ? [{ text: content.text }, image] : [image];
  }
  if (content.type === 'BUTTONS') {
    const text = content.text ?? '';
    // Messenger: a button template holds at most 3 postback buttons; more become quick replies (≤ 13).
    // Instagram has no button template: always quick replies.
    if (type === 'INSTAGRAM' || content.buttons.length > MESSENGER_TEMPLATE_BUTTONS) {
      return [
        {
          text,
          quick_replies: content.buttons
            .slice(0, MAX_QUICK_REPLIES)
            .map((b) => ({ content_type: 'text', title: b.title, payload: b.payload })),
        },
      ];
    }
    return [
      {
        attachment: {
          type: 'template',
          payload: {
            template_type: 'button',
            text,
            buttons: content.buttons.map((b) => ({ type: 'postback', title: b.title, payload: b.payload })),
          },
        },
      },
    ];
  }
  return [{ text: content.text ?? '' }];
}

function whatsAppBody(to: string, content: OutboundContent): Json {
  const base = { messaging_product: 'whatsapp', recipient_type: 'individual', to };
  if (content.type === 'IMAGE' && content.imageUrl) {
    return {
      ...base,
      type: 'image',
      image: { link: content.imageUrl, ...(content.text ? { caption: content.text } : {}) },
    };
  }
  if (content.type === 'BUTTONS') {
    const asButtons =
      content.buttons.length <= WHATSAPP_REPLY_BUTTONS &&
      content.buttons.every((b) => b.title.length <= WHATSAPP_BUTTON_TITLE);
    if (asButtons) {
      return {
        ...base,
        type: 'interactive',
        interactive: {
          type: 'button',
          body: { text: content.text ?? '' },
          action: {
            buttons: content.buttons.map((b) => ({ type: 'reply', reply: { id: b.payload, title: b.title } })),
          },
        },
      };
    }
    // More than 3 buttons (or a longer title): a list message, one section of up to 10 rows.
    return {
      ...base,
      type: 'interactive',
      interactive: {
        type: 'list',
        body: { text: content.text ?? '' },
        action: {
          button: 'Options',
          sections: [
            {
              title: 'Options',
              rows: content.buttons
                .slice(0, WHATSAPP_LIST_ROWS)
                .map((b) => ({ id: b.payload, title: b.title.slice(0, WHATSAPP_ROW_TITLE) })),
            },
          ],
        },
      },
    };
  }
  return { ...base, type: 'text', text: { preview_url: false, body: content.text ?? '' } };
}
