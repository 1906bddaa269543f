import { Injectable } from '@nestjs/common';
import { SecretBox } from 'src/core/crypto/secret-box.service';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { EVENT_DESCRIPTIONS, EVENT_NAMES } from 'src/core/events/event-bus';
import { OutboundUrlService } from 'src/core/http/outbound-url.service';
import { type Page, mapPage } from 'src/core/http/pagination';
import { SCOPES } from 'src/core/auth/permissions';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import {
  type CreateWebhookDto,
  type ListDeliveriesQuery,
  type UpdateWebhookDto,
  type WebhookDeliveryResponse,
  type WebhookResponse,
  type WebhookTestResponse,
  type WebhookWithSecretResponse,
  toDeliveryResponse,
  toWebhookResponse,
} from '../dto/webhook.dto';
import type { CursorPaginationQuery } from 'src/core/http/pagination';
import type { WebhookEntity } from './webhook.entity';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { WEBHOOK_TIMEOUT_MS } from './webhook-http.client';
import { newWebhookSecret } from './webhook-signer';
import { WEBHOOK_MAX_CONSECUTIVE_FAILURES, WebhooksRepository } from './webhooks.repository';

/** During a rotation the previous secret keeps signing for this long. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/** Developer webhooks (DESIGN §10, §14, §15): CRUD, delivery log, redelivery, test, secret rotation. */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly dispatcher: WebhookDispatcher,
    private readonly secrets: SecretBox,
    private readonly urls: OutboundUrlService,
  ) {}

  meta(): Record<string, unknown> {
    return {
      events: EVENT_NAMES.map((name) => ({ name, description: EVENT_DESCRIPTIONS[name] })),
      scopes: [...SCOPES],
      signature: {
        standard: 'Standard Webhooks',
        headers: ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Service-Signature'],
        webhookSignature:
          'v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body">, space-separated during a secret rotation',
        serviceSignature: 'sha256=<hex HMAC-SHA256 of the body>',
        secret: 'whsec_<base64>; the HMAC key is the decoded bytes',
        payload: '{id, type, workspaceId, createdAt, data}',
        timeoutSeconds: WEBHOOK_TIMEOUT_MS / 1000,
        retryDelaysSeconds: this.dispatcher.retryDelaysSeconds,
        disableAfterConsecutiveFailures: WEBHOOK_MAX_CONSECUTIVE_FAILURES,
      },
      docs: '/docs',
    };
  }

  async list(_ctx: TenantContext, query: CursorPaginationQuery): Promise<Page<WebhookResponse>> {
    return mapPage(await this.webhooks.findPage(query), toWebhookResponse);
  }

  async get(_ctx: TenantContext, id: string): Promise<WebhookResponse> {
    return toWebhookResponse(await this.webhooks.getById(id));
  }

  async create(_ctx: TenantContext, dto: CreateWebhookDto): Promise<WebhookWithSecretResponse> {
    const events = checkEvents(dto.events);
    const url = (await this.urls.assertAllowed(dto.url, 'url')).toString();
    const secret = newWebhookSecret();
    const webhook = await this.webhooks.insert({
      url,
      events,
      description: dto.description ?? null,
      active: dto.active ?? true,
      secret: this.secrets.encrypt(secret),
    });
    return { ...toWebhookResponse(webhook), secret };
  }

  /** Only the fields sent change; `active: true` re-enables a disabled webhook and resets its failure count. */
  async update(_ctx: TenantContext, id: string, dto: UpdateWebhookDto): Promise<WebhookResponse> {
    const current = await this.webhooks.getById(id);
    const patch: Partial<WebhookEntity> = {};
    if (dto.url !== undefined) patch.url = (await this.urls.assertAllowed(dto.url, 'url')).toString();
    if (dto.events !== undefined) patch.events = checkEvents(dto.events);
    if (dto.description !== undefined) patch.description = dto.description;
    if (dto.active === true) Object.assign(patch, { active: true, failureCount: 0, disabledAt: null });
    if (dto.active === false) patch.active = false;
    return toWebhookResponse(await this.webhooks.updateById(current.id, patch));
  }

  async remove(_ctx: TenantContext, id: string): Promise<void> {
    await this.webhooks.deleteById(id);
  }

  /** A new secret, returned once; the old one keeps signing (as a second signature) for 24 h. */
  async rotateSecret(_ctx: TenantContext, id: string): Promise<WebhookWithSecretResponse> {
    const current = await this.webhooks.getById(id);
    const secret = newWebhookSecret();
    const updated = await this.webhooks.updateById(current.id, {
      secret: this.secrets.encrypt(secret),
      previousSecret: current.secret,
      previousSecretExpiresAt: new Date(Date.now() + ROTATION_OVERLAP_MS),
    });
    return { ...toWebhookResponse(updated), secret };
  }

  async listDeliveries(
    _ctx: TenantContext,
    id: string,
    query: ListDeliveriesQuery,
  ): Promise<Page<WebhookDeliveryResponse>> {
    const webhook = await this.webhooks.getById(id);
    return mapPage(await this.deliveries.findPage(webhook.id, query), toDeliveryResponse);
  }

  /** The same event (same id) again, as a new attempt 1, now; the answer is the queued attempt (202). */
  async redeliver(_ctx: TenantContext, id: string, deliveryId: string): Promise<WebhookDeliveryResponse> {
    const webhook = await this.webhooks.getById(id);
    const original = await this.deliveries.findById(deliveryId);
    if (!original || original.webhookId !== webhook.id) throw AppException.notFound('Delivery');
    const queued = await this.tx.run(async () => {
      const scheduled = await this.deliveries.schedule(webhook.id, original.eventId, original.eventType, 1, null);
      await this.tx.afterCommit(() => this.dispatcher.enqueueDrain(webhook.workspaceId, webhook.id));
      return scheduled;
    });
    return toDeliveryResponse(queued);
  }

  async test(_ctx: TenantContext, id: string): Promise<WebhookTestResponse> {
    return this.dispatcher.test(await this.webhooks.getById(id));
  }
}

/** Event names must be known; unknown → 400 listing the valid ones. */
function checkEvents(events: readonly string[]): string[] {
  const unknown = events.filter((e) => !(EVENT_NAMES as readonly string[]).includes(e));
  if (unknown.length > 0) {
    throw AppException.validation(`Unknown event names: ${unknown.join(', ')}`, [
      { field: 'events', message: `unknown: ${unknown.join(', ')}; valid: ${EVENT_NAMES.join(', ')}` },
    ]);
  }
  return [...events];
}
