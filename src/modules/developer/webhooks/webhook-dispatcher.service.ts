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
import type { WebhookDeliveryEntity } from './webhook-delivery.entity';
import {
  type AttemptSuccess,
  MAX_IN_FLIGHT_PER_WEBHOOK,
  type OutboxEvent,
  WebhookDeliveriesRepository,
  type WebhookTarget,
} from './webhook-deliveries.repository';
import { WebhookHttpClient, type WebhookHttpResult } from './webhook-http.client';
import { signatureHeaders } from './webhook-signer';
import { WebhooksRepository } from './webhooks.repository';

export interface WebhookDrainJobData extends JobPayload {
  readonly webhookId: string;
}

export type OutboxRelayJobData = JobPayload;

/** Outbox rows taken per relay statement. */
const RELAY_BATCH = 200;
/** Relay jobs are coalesced per workspace into windows of this length. */
export const RELAY_WINDOW_MS = 100;
/** A webhook whose attempts in flight are at the limit is looked at again after this long. */
const BUSY_RETRY_MS = 1_000;
/** Batches one drain job sends before it hands the rest of a webhook's backlog to a new job. */
const DRAIN_ROUNDS = 250;

/** What one drain job did. */
export interface DrainTally {
  sent: number;
  failed: number;
  retrying: number;
}

export interface TestDeliveryResult {
  readonly delivered: boolean;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
}

/**
 * Event outbox → webhooks. After a transaction that published events commits, the bus tells this
 * service, which enqueues one relay job per workspace and 100 ms window (coalesced by job id). The
 * relay turns outbox rows into PENDING delivery attempts and enqueues one drain job per webhook that
 * got some. A drain claims the webhook's due attempts in batches (a lease under FOR UPDATE SKIP
 * LOCKED, so each runs once across workers; at most MAX_IN_FLIGHT_PER_WEBHOOK in flight), signs and
 * POSTs them side by side, and stores the batch's successes in one statement. Failed attempts
 * schedule the next one in the database (`nextAttemptAt`, WEBHOOK_RETRY_DELAYS) and a drain delayed
 * to it; the recovery sweep finds whatever a crash or a lost job left behind. A slow receiver holds
 * one job, never every worker.
 */
@Injectable()
export class WebhookDispatcher implements OnModuleInit {
  private readonly logger = new Logger('Webhooks');
  private readonly kicked = new Set<string>();
  /**
   * Webhooks this process drains now. A drain asked for meanwhile (the relay's, a retry's) only
   * marks `again`, and the running drain claims once more before it stops: one drain per webhook
   * and process, instead of drains racing for the same four slots and mostly claiming nothing.
   */
  private readonly draining = new Map<string, { again: boolean }>();

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

  /** The relay job (in the workspace's context): outbox rows → delivery attempts → one drain per webhook. */
  async relay(): Promise<number> {
    let relayed = 0;
    for (let round = 0; round < 50; round++) {
      const result = await this.deliveries.relay(RELAY_BATCH);
      relayed += result.relayed;
      const workspaceId = this.workspaceId();
      await Promise.all(result.webhookIds.map((id) => this.enqueueDrain(workspaceId, id)));
      if (result.relayed < RELAY_BATCH) break;
    }
    return relayed;
  }

  /** A drain of `webhookId`'s due attempts, now or after `delayMs` (a retry's time). */
  async enqueueDrain(workspaceId: string, webhookId: string, delayMs = 0): Promise<void> {
    try {
      await this.jobs.enqueue<WebhookDrainJobData>(
        JobName.DeveloperWebhookDrain,
        { workspaceId, webhookId },
        { delayMs: Math.max(0, delayMs) },
      );
    } catch (error) {
      this.logger.warn({ err: error, webhookId }, 'Could not enqueue a webhook drain; the sweep will pick it up');
    }
  }

  /**
   * The drain job (in the workspace's context): the webhook's due attempts, a batch at a time, until
   * none is left. Never throws for a receiver's failure: retries live in the rows.
   * Nothing is POSTed before the event is durable: the relay that created an attempt and the claim
   * below are synchronous commits, each flushing the WAL through every earlier commit (the inbound
   * pipeline's asynchronous one that wrote the outbox row included, issue 16).
   */
  async drain(webhookId: string): Promise<DrainTally> {
    const tally: DrainTally = { sent: 0, failed: 0, retrying: 0 };
    const running = this.draining.get(webhookId);
    if (running) {
      // This process drains the webhook already: that drain claims once more before it stops.
      running.again = true;
      return tally;
    }
    const state = { again: false };
    this.draining.set(webhookId, state);
    try {
      const workspaceId = this.workspaceId();
      for (let round = 0; round < DRAIN_ROUNDS; round++) {
        state.again = false;
        const batch = await this.deliveries.claimBatch(webhookId, MAX_IN_FLIGHT_PER_WEBHOOK);
        if (batch.attempts.length === 0) {
          // Asked again while this claim ran: attempts committed after its snapshot may be due.
          if (state.again) continue;
          if (batch.waiting) await this.enqueueDrain(workspaceId, webhookId, BUSY_RETRY_MS);
          return tally;
        }
        const sent: AttemptSuccess[] = [];
        await Promise.all(
          batch.attempts.map(async ({ delivery, event }) => {
            const outcome = await this.attempt(batch.webhook, delivery, event);
            if (outcome === 'failed' || outcome === 'retrying') tally[outcome]++;
            else sent.push(outcome);
          }),
        );
        await this.deliveries.finishSucceeded(webhookId, sent);
        tally.sent += sent.length;
      }
      await this.enqueueDrain(workspaceId, webhookId);
      return tally;
    } finally {
      this.draining.delete(webhookId);
    }
  }

  /** One claimed attempt: a success is returned for the batch to store; a failure is stored here. */
  private async attempt(
    webhook: WebhookTarget | null,
    delivery: WebhookDeliveryEntity,
    event: OutboxEvent | null,
  ): Promise<AttemptSuccess | 'failed' | 'retrying'> {
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
    if (succeeded(result)) {
      return {
        id: delivery.id,
        statusCode: result.statusCode!,
        durationMs: result.durationMs,
        responseExcerpt: result.responseExcerpt,
      };
    }
    const gone = result.statusCode === 410;
    const next = await this.tx.run(async () => {
      let nextAttempt: Date | null = null;
      const disabled = await this.webhooks.recordFailure(webhook.id, gone);
      if (!disabled && delivery.attempt < this.maxAttempts) {
        const delays = this.config.outbound.webhookRetryDelaysSeconds;
        const delaySeconds = delays[Math.min(delivery.attempt - 1, delays.length - 1)] ?? 0;
        nextAttempt = new Date(Date.now() + delaySeconds * 1000);
        await this.deliveries.schedule(webhook.id, event.id, event.type, delivery.attempt + 1, nextAttempt);
      }
      await this.deliveries.finish(delivery.id, {
        status: 'FAILED',
        statusCode: result.statusCode,
        durationMs: result.durationMs,
        error: result.error ?? `HTTP ${result.statusCode}`,
        responseExcerpt: result.responseExcerpt,
        nextAttemptAt: nextAttempt,
      });
      return nextAttempt;
    });
    if (!next) {
      this.logger.warn({ webhookId: webhook.id, deliveryId: delivery.id, gone }, 'Webhook delivery failed for good');
      return 'failed';
    }
    await this.enqueueDrain(this.workspaceId(), webhook.id, next.getTime() - Date.now());
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
