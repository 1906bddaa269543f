import { Injectable } from '@nestjs/common';
import { OutboundHttp, OutboundHttpError } from 'src/core/http/outbound-http';
import {
  type DeliveryResult,
  type DeliveryTarget,
  type OutboundContent,
  PermanentDeliveryError,
} from '../../channel.types';
import { sha256Signature } from '../signature.util';
import { PlatformRequestError, describe } from '../platform-http.service';

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
 * POSTs replies to the connection's outbound URL through the one outbound client (issue 9): every
 * resolved address is checked at every send and the connection goes to a checked address;
 * redirects are followed by hand, each hop checked, the signature dropped on another origin. With an
 * outbound secret, the exact bytes sent are signed: `X-Service-Signature: sha256=<hex HMAC-SHA256>`.
 */
@Injectable()
export class CustomChannelPlatform {
  constructor(private readonly http: OutboundHttp) {}

  async send(target: DeliveryTarget, content: OutboundContent): Promise<DeliveryResult> {
    const url = target.connection.config.outboundUrl;
    if (!url) throw new PermanentDeliveryError('The channel has no outbound URL');
    const body = customOutboundBody(target.recipientId, content, new Date());
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    const secret = target.connection.secrets.outboundSecret;
    if (secret) headers['X-Service-Signature'] = sha256Signature(secret, body);
    let response;
    try {
      response = await this.http.request({
        method: 'POST',
        url,
        headers,
        body,
        timeoutMs: 10_000,
        maxBytes: 1024 * 1024,
      });
    } catch (error) {
      if (!(error instanceof OutboundHttpError)) throw error;
      // A refused or malformed destination will not get better by retrying.
      if (error.kind === 'refused' || error.kind === 'bad_url')
        throw new PermanentDeliveryError(`outboundUrl ${error.message}`);
      throw new PlatformRequestError(error.message, null);
    }
    if (response.status < 200 || response.status >= 300) {
      let data: unknown = null;
      try {
        data = JSON.parse(response.text());
      } catch {
        /* not JSON: no description */
      }
      throw new PlatformRequestError(`HTTP ${response.status}${describe(data)}`, response.status);
    }
    return { externalId: null };
  }
}
