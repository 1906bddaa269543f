import { Injectable } from '@nestjs/common';
import { ChannelPlatforms, type WebhookRequest } from 'src/modules/channels';
import type { WebhookAckResponse } from '../events/dto/inbound-event.dto';
import { InboundEventsService } from '../events/inbound-events.service';

const NOTHING_STORED: WebhookAckResponse = { received: true, eventId: null, eventIds: [] };

/**
 * The webhook receivers' rule (DESIGN §4.2, §4.3): the platform's adapter finds the connection the
 * request names, verifies its signature on the raw bytes and splits it into events; they are stored
 * and acknowledged. A missing or wrong signature stores nothing. Processing happens later, in the
 * `inbound` job.
 */
@Injectable()
export class InboundWebhooksService {
  constructor(
    private readonly platforms: ChannelPlatforms,
    private readonly events: InboundEventsService,
  ) {}

  async receive(webhook: string, request: WebhookRequest): Promise<WebhookAckResponse> {
    const drafts = await this.platforms.receive(webhook, request);
    return drafts.length ? this.events.store(drafts, request.rawBody) : NOTHING_STORED;
  }

  /**
   * The lean acknowledgement (issue 16): the ordinary valid request is stored and acknowledged as by
   * `receive`; null when the adapter is not sure, and the caller falls back to `receive`.
   */
  async receiveFast(webhook: string, request: WebhookRequest): Promise<WebhookAckResponse | null> {
    const drafts = await this.platforms.receiveFast(webhook, request);
    return drafts?.length ? this.events.store(drafts, request.rawBody) : null;
  }

  verifySubscription(webhook: string, query: Record<string, unknown>): Promise<string> {
    return this.platforms.verifySubscription(webhook, query);
  }
}
