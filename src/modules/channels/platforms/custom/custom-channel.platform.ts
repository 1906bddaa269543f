import { Injectable } from '@nestjs/common';
import { AppException } from 'src/core/errors/app.exception';
import { OutboundUrlService } from 'src/core/http/outbound-url.service';
import {
  type DeliveryResult,
  type DeliveryTarget,
  type OutboundContent,
  PermanentDeliveryError,
} from '../../channel.types';
import { sha256Signature } from '../signature.util';
import { PlatformHttp } from '../platform-http.service';

/** The Custom Channel outbound message (SPEC §2, DESIGN §4.4). */
export function customOutboundBody(recipientId: string, content: OutboundContent, sentAt: Date): string {
  let message: Record<string, unknown>;
  if (content.type === 'IMAGE' && content.imageUrl) {
    message = { type: 'IMAGE', url: content.imageUrl, ...(content.text ? { caption: content.text } : {}) };
  } else if (content.type === 'BUTTONS') {
    message = {
      type: 'BUTTONS',
      text: content.text ?? '',
      buttons: content.buttons.map((b) => ({ title: b.title, payload: b.payload })),
    };
  } else {
    message = { type: 'TEXT', text: content.text ?? '' };
  }
  return JSON.stringify({ recipientId, message, sentAt: sentAt.toISOString() });
}

/**
 * POSTs replies to the connection's outbound URL; with an outbound secret, the exact bytes sent are
 * signed: `X-Service-Signature: sha256=<hex HMAC-SHA256>`. The URL is re-checked against private
 * networks at every send (DNS may have changed since it was saved).
 */
@Injectable()
export class CustomChannelPlatform {
  constructor(
    private readonly http: PlatformHttp,
    private readonly urls: OutboundUrlService,
  ) {}

  async send(target: DeliveryTarget, content: OutboundContent): Promise<DeliveryResult> {
    const url = target.connection.config.outboundUrl;
    if (!url) throw new PermanentDeliveryError('The channel has no outbound URL');
    try {
      await this.urls.assertAllowed(url, 'outboundUrl');
    } catch (error) {
      if (error instanceof AppException) throw new PermanentDeliveryError(error.message);
      throw error;
    }
    const body = customOutboundBody(target.recipientId, content, new Date());
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    const secret = target.connection.secrets.outboundSecret;
    if (secret) headers['X-Service-Signature'] = sha256Signature(secret, body);
    await this.http.request({ method: 'POST', url, headers, body });
    return { externalId: null };
  }
}
