import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { SecretBox } from 'src/core/crypto/secret-box.service';
import { TransactionHost } from 'src/core/database/transaction-host';
import { EventBus } from 'src/core/events/event-bus';
import { JobName } from 'src/core/queue/job-names';
import { JOB_QUEUE, type JobPayload, type JobQueue } from 'src/core/queue/job-queue.port';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import type { WebhookEntity } from './webhook.entity';
import { type OutboxEvent, WebhookDeliveriesRepository, type WebhookTarget } from './webhook-deliveries.repository';
import { WebhookHttpClient, type WebhookHttpResult } from './webhook-http.client';
import { signatureHeaders } from './webhook-signer';
import { WebhooksRepository } from './webhooks.repository';

export interface WebhookDeliverJobData extends JobPayload {
  readonly deliveryId: string;
}

export type OutboxRelayJobData = JobPayload;

/** Outbox rows taken per relay statement. */
const RELAY_BATCH = 200;
/** Relay jobs are coalesced per workspace into windows of this length. */
export const RELAY_WINDOW_MS = 100;
/** A busy webhook's attempt waits this long before it is tried again (not counted as an attempt). */
const BUSY_RETRY_MS = 1_000;

export interface TestDeliveryResult {
  readonly delivered: boolean;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
}

/**
 * Event outbox → webhooks. After a transaction that published events commits, the bus tells this
 * service, which enqueues one relay job per workspace and 100 ms window (coalesced by job id). The
 * relay turns outbox rows into PENDING delivery attempts; each attempt is a job that claims its row
 * (a lease under FOR UPDATE SKIP LOCKED, so it runs once across workers), signs and POSTs the event,
 * and stores the outcome. Failed attempts schedule the next one in the database (`nextAttemptAt`,
 * WEBHOOK_RETRY_DELAYS) and enqueue it delayed; the recovery sweep finds whatever a crash or a lost
 * job left behind. A webhook never has more than a few attempts in flight, so a slow receiver
 * cannot hold every worker.
 */
@Injectable()
export class WebhookDispatcher implements OnModuleInit {
  private readonly logger = new Logger('Webhooks');
  private readonly kicked = new Set<string>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    private readonly tx: TransactionHost,
    private readonly bus: EventBus,
    private readonly webhooks: WebhooksRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly http: WebhookHttpClient,
    private readonly secrets: SecretBox,
  ) {}

  onModuleInit(): void {
    this.bus.onOutboxWritten((workspaceId) => this.kick(workspaceId));
  }

  get retryDelaysSeconds(): readonly number[] {
    return this.config.outbound.webhookRetryDelaysSeconds;
  }

  /** Total attempts of one delivery: the first plus one per retry delay. */
  get maxAttempts(): number {
    return this.config.outbound.webhookRetryDelaysSeconds.length + 1;
  }

  /**
   * New outbox rows in a workspace: one relay job per workspace and window. The job runs when the
   * window ends, so every row whose enqueue was coalesced into it has committed by then.
   */
  async kick(workspaceId: string, jobSuffix = ''): Promise<void> {
    const now = Date.now();
    const window = Math.floor(now / RELAY_WINDOW_MS);
    const key = `${workspaceId}-${window}${jobSuffix}`;
    if (this.kicked.has(key)) return;
    this.kicked.add(key);
    if (this.kicked.size > 10_000) this.kicked.clear();
    try {
      await this.jobs.enqueue<OutboxRelayJobData>(
        JobName.DeveloperOutboxRelay,
        { workspaceId },
        { jobId: `relay-${key}`, delayMs: (window + 1) * RELAY_WINDOW_MS - now },
      );
    } catch (error) {
      this.kicked.delete(key);
      this.logger.warn({ err: error, workspaceId }, 'Could not enqueue the outbox relay; the sweep will pick it up');
    }
  }

  /** The relay job (in the workspace's context): outbox rows → delivery attempts → delivery jobs. */
  async relay(): Promise<number> {
    let relayed = 0;
    for (let round = 0; round < 50; round++) {
      const result = await this.deliveries.relay(RELAY_BATCH);
      relayed += result.relayed;
      const workspaceId = this.workspaceId();
      await Promise.all(result.deliveryIds.map((id) => this.enqueueDelivery(workspaceId, id, id)));
      if (result.relayed < RELAY_BATCH) break;
    }
    return relayed;
  }

  async enqueueDelivery(workspaceId: string, deliveryId: string, jobId: string, delayMs = 0): Promise<void> {
    try {
      await this.jobs.enqueue<WebhookDeliverJobData>(
        JobName.DeveloperWebhookDeliver,
        { workspaceId, deliveryId },
        { jobId, delayMs: Math.max(0, delayMs) },
      );
    } catch (error) {
      this.logger.warn({ err: error, deliveryId }, 'Could not enqueue a webhook delivery; the sweep will pick it up');
    }
  }

  /**
   * One attempt (the delivery job, in the workspace's context). Never throws: retries live in the rows.
   * Nothing is POSTed before the event is durable: the relay that created the attempt and the claim
   * below are synchronous commits, each flushing the WAL through every earlier commit (the inbound
   * pipeline's asynchronous one that wrote the outbox row included, issue 16).
   */
  async deliver(deliveryId: string): Promise<'sent' | 'failed' | 'retrying' | 'postponed' | 'skipped'> {
    const claim = await this.deliveries.claim(deliveryId);
    if (claim.kind === 'none') return 'skipped';
    const workspaceId = this.workspaceId();
    if (claim.kind === 'busy') {
      await this.deliveries.postpone(deliveryId, BUSY_RETRY_MS);
      await this.enqueueDelivery(workspaceId, deliveryId, `${deliveryId}-busy-${Date.now()}`, BUSY_RETRY_MS);
      return 'postponed';
    }
    const { delivery, webhook, event } = claim;
    if (!webhook || !event || !webhook.active || webhook.disabledAt) {
      await this.deliveries.finish(delivery.id, {
        status: 'FAILED',
        statusCode: null,
        durationMs: 0,
        error: !event ? 'the event is no longer stored' : 'the webhook is disabled',
        responseExcerpt: null,
        nextAttemptAt: null,
      });
      return 'failed';
    }
    const result = await this.send(webhook, event);
    const gone = result.statusCode === 410;
    if (succeeded(result)) {
      await this.deliveries.finishSucceeded(delivery.id, webhook.id, result);
      return 'sent';
    }
    const next = await this.tx.run(async () => {
      let nextAttempt: { id: string; at: Date } | null = null;
      const disabled = await this.webhooks.recordFailure(webhook.id, gone);
      if (!disabled && delivery.attempt < this.maxAttempts) {
        const delays = this.config.outbound.webhookRetryDelaysSeconds;
        const delaySeconds = delays[Math.min(delivery.attempt - 1, delays.length - 1)] ?? 0;
        const at = new Date(Date.now() + delaySeconds * 1000);
        const scheduled = await this.deliveries.schedule(webhook.id, event.id, event.type, delivery.attempt + 1, at);
        nextAttempt = { id: scheduled.id, at };
      }
      await this.deliveries.finish(delivery.id, {
        status: 'FAILED',
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error ?? `HTTP ${result.statusCode}`,
        responseExcerpt: result.responseExcerpt,
        nextAttemptAt: nextAttempt?.at ?? null,
      });
      return nextAttempt;
    });
    if (!next) {
      this.logger.warn({ webhookId: webhook.id, deliveryId, gone }, 'Webhook delivery failed for good');
      return 'failed';
    }
    await this.enqueueDelivery(workspaceId, next.id, next.id, next.at.getTime() - Date.now());
    return 'retrying';
  }

  /** `POST /developer/webhooks/:id/test`: a `webhook.test` event sent now, once, logged as a delivery. */
  async test(webhook: WebhookEntity): Promise<TestDeliveryResult> {
    const { event, deliveryId } = await this.tx.run(async () => {
      const stored = await this.deliveries.insertRelayedEvent('webhook.test', {
        webhookId: webhook.id,
        message: 'A test delivery from the Support Inbox Service.',
      });
      const delivery = await this.deliveries.schedule(webhook.id, stored.id, stored.type, 1, null, {
        lockedSeconds: 60,
      });
      return { event: stored, deliveryId: delivery.id };
    });
    const result = await this.send(webhook, event);
    const ok = succeeded(result);
    await this.deliveries.finish(deliveryId, {
      status: ok ? 'SUCCEEDED' : 'FAILED',
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: ok ? null : (result.error ?? `HTTP ${result.statusCode}`),
      responseExcerpt: result.responseExcerpt,
      nextAttemptAt: null,
    });
    return {
      delivered: ok,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: ok ? null : (result.error ?? `HTTP ${result.statusCode}`),
    };
  }

  /** Signs and POSTs `{id, type, workspaceId, createdAt, data}`; the webhook-id is the event id on every attempt. */
  private send(webhook: WebhookTarget, event: OutboxEvent): Promise<WebhookHttpResult> {
    const body = JSON.stringify({
      id: event.id,
      type: event.type,
      workspaceId: event.workspaceId,
      createdAt: event.createdAt,
      data: event.data,
    });
    const secrets: string[] = [];
    try {
      secrets.push(this.secrets.decrypt(webhook.secret));
      if (webhook.previousSecret && webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > new Date()) {
        secrets.push(this.secrets.decrypt(webhook.previousSecret));
      }
    } catch (error) {
      this.logger.error(
        { err: error, webhookId: webhook.id },
        'Cannot unseal the webhook secret (ENCRYPTION_KEY changed?)',
      );
      return Promise.resolve({
        statusCode: null,
        durationMs: 0,
        error: 'the signing secret cannot be read',
        responseExcerpt: null,
      });
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'SupportInboxService-Webhooks/1',
      ...signatureHeaders(event.id, Math.floor(Date.now() / 1000), body, secrets),
    };
    return this.http.post(webhook.url, headers, body);
  }

  private workspaceId(): string {
    return getTenantContext().workspaceId;
  }
}

function succeeded(result: WebhookHttpResult): boolean {
  return result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
}
