import { AsyncResource } from 'node:async_hooks';
import { containsNul, sanitizeJson } from 'src/core/http/input-guard';
import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { AppException } from 'src/core/errors/app.exception';
import { type CursorPaginationQuery, type Page, mapPage } from 'src/core/http/pagination';
import { sessionPriority } from 'src/core/database/session-priority';
import { JobName } from 'src/core/queue/job-names';
import { JOB_QUEUE, type JobQueue } from 'src/core/queue/job-queue.port';
import { type TenantContext, runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { ChannelsService, type InboundEventDraft } from 'src/modules/channels';
import { type InboundEventResponse, type WebhookAckResponse, toInboundEventResponse } from './dto/inbound-event.dto';
import type { InboundEventStatus } from './inbound-event.entity';
import { GroupCommit } from './inbound-ack-batcher';
import { InboundEventsRepository } from './inbound-events.repository';

type ReceivedRow = Parameters<InboundEventsRepository['insertReceived']>[0][number];

/** Stored events wait at most this long (ms) for others to share their `addBulk` (see enqueueSoon). */
export const ENQUEUE_LINGER_MS = 20;
/** …or until this many are waiting. */
export const ENQUEUE_MAX_BATCH = 200;

/**
 * The durable inbound log (DESIGN §4.3): webhook events are stored RECEIVED before the 200, then a
 * job per event processes them. Retries are driven by the rows (attempts, next_attempt_at), so they
 * survive restarts and work the same on BullMQ and in-process.
 */
@Injectable()
export class InboundEventsService implements BeforeApplicationShutdown {
  private readonly logger = new Logger('InboundEvents');
  private readonly toEnqueue: { id: string; workspaceId: string }[] = [];
  private enqueueTimer: NodeJS.Timeout | null = null;
  private readonly enqueueScope = new AsyncResource('InboundEnqueue');
  private readonly acks: GroupCommit<ReceivedRow>;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    private readonly events: InboundEventsRepository,
    private readonly channels: ChannelsService,
  ) {
    // Foreground on the session: served before queued pipeline work on the embedded engine. On
    // PostgreSQL with the acks' own pool, one INSERT in flight per connection of that pool.
    const ownPool = config.db.url !== null && config.db.ackPoolSize > 0;
    this.acks = new GroupCommit<ReceivedRow>(
      (workspaceId, rows) =>
        sessionPriority.foreground(() => runAsWorkspace(workspaceId, () => this.events.insertReceived(rows))),
      100,
      ownPool ? config.db.ackPoolSize : 2,
    );
  }

  /** Total attempts an event gets before it ends FAILED. */
  get maxAttempts(): number {
    return this.config.outbound.inboundRetryDelaysSeconds.length + 1;
  }

  /**
   * Stores drafts (possibly of several workspaces: one Meta POST can name pages of different
   * workspaces) and enqueues each. The rows go through the group commit (concurrent acks share one
   * INSERT); the caller is answered once its rows are durable. Enqueueing is not awaited: the rows
   * are the durable record, and the recovery sweep re-enqueues any event whose job was lost.
   * A signed event is always stored (issue 9): PostgreSQL cannot hold U+0000 in text or jsonb, so a
   * payload holding one is stored sanitised (U+0000 → U+FFFD) with the request's raw bytes kept in
   * `raw_body`; a NUL in a customer's text never loses the message.
   */
  async store(drafts: readonly InboundEventDraft[], rawBody?: Buffer): Promise<WebhookAckResponse> {
    const rows = drafts.map((d) => ({
      workspaceId: d.connection.workspaceId,
      row: {
        channelId: d.connection.id,
        channelType: d.connection.type,
        senderKey: d.senderKey === null ? null : sanitizeJson(d.senderKey),
        externalId: d.externalId === null ? null : sanitizeJson(d.externalId),
        payload: sanitizeJson(d.payload),
        rawBody: rawBody && containsNul([d.payload, d.senderKey, d.externalId]) ? rawBody : null,
      },
    }));
    const ids = rows.length === 1 ? [await this.acks.storeOne(rows[0]!)] : await this.acks.store(rows);
    const stored = ids.map((id, i) => ({ id, workspaceId: drafts[i]!.connection.workspaceId }));
    this.enqueueSoon(stored);
    return { received: true, eventId: stored[0]?.id ?? null, eventIds: stored.map((e) => e.id) };
  }

  /**
   * Enqueues stored events shortly after their answer, together with every other request's events
   * stored meanwhile: one `addBulk` round trip for all the acks of up to ENQUEUE_LINGER_MS (or
   * ENQUEUE_MAX_BATCH events, whichever comes first) instead of one per group-commit flush (issue 16;
   * at 500 acks/s flushes hold one or two rows, and each `addBulk` was a Redis round trip of its own
   * in the API process). The caller's answer does not wait for it; the pipeline starts an event at
   * most that much later. Never throws: the sweep recovers a lost enqueue.
   */
  private enqueueSoon(events: readonly { id: string; workspaceId: string }[]): void {
    this.toEnqueue.push(...events);
    if (this.toEnqueue.length >= ENQUEUE_MAX_BATCH) {
      if (this.enqueueTimer) clearTimeout(this.enqueueTimer);
      this.enqueueTimer = null;
      this.enqueueScope.runInAsyncScope(() => void this.enqueuePending());
      return;
    }
    // Scheduled outside the request's async context (its tenant, request id, ack priority).
    this.enqueueTimer ??= this.enqueueScope.runInAsyncScope(() =>
      setTimeout(() => {
        this.enqueueTimer = null;
        void this.enqueuePending();
      }, ENQUEUE_LINGER_MS),
    );
  }

  /** Stored events still waiting for their `addBulk` are enqueued before the queues close. */
  beforeApplicationShutdown(): Promise<void> {
    return this.enqueueLingering();
  }

  /**
   * Enqueues at once the stored events still waiting out ENQUEUE_LINGER_MS. A caller that waits for
   * in-process jobs to finish (the CLI's `demo:seed` before it returns and closes) calls this first:
   * otherwise the events it just stored might not be queued yet.
   */
  async enqueueLingering(): Promise<void> {
    if (this.enqueueTimer) clearTimeout(this.enqueueTimer);
    this.enqueueTimer = null;
    if (this.toEnqueue.length > 0) await this.enqueuePending();
  }

  private async enqueuePending(): Promise<void> {
    const events = this.toEnqueue.splice(0);
    if (events.length === 0) return;
    // Events acknowledged since the last batch: an ack flood makes the pipeline yield (pipeline-yield.ts).
    this.jobs.acknowledged(JobName.InboundEventProcess, events.length);
    try {
      await this.jobs.enqueueMany(
        JobName.InboundEventProcess,
        events.map((e) => ({ data: { workspaceId: e.workspaceId, eventId: e.id }, options: { jobId: e.id } })),
      );
    } catch (error) {
      this.logger.warn(
        { err: error, events: events.length },
        'Could not enqueue inbound events; the recovery sweep will pick them up',
      );
    }
  }

  /**
   * The events of `eventIds` whose first job (the one queued at acknowledgement, whose id is the
   * event's) has not run yet: in a backlog they wait in the queue, they are not lost.
   */
  stillQueued(eventIds: readonly string[]): Promise<Set<string>> {
    return this.jobs.pendingJobs(JobName.InboundEventProcess, eventIds);
  }

  /** Puts one event on the `inbound` queue. Never throws: a lost enqueue is recovered by the sweep. */
  async enqueue(workspaceId: string, eventId: string, jobId: string, delayMs = 0): Promise<void> {
    // InboundEventJobData (declared beside its handler; not imported here, which would close an import cycle).
    const data = { workspaceId, eventId };
    try {
      await this.jobs.enqueue(JobName.InboundEventProcess, data, { jobId, delayMs });
    } catch (error) {
      this.logger.warn(
        { err: error, eventId },
        'Could not enqueue an inbound event; the recovery sweep will pick it up',
      );
    }
  }

  /** `GET /channels/:id/events`: newest first; 404 for a channel of another workspace. */
  async list(
    ctx: TenantContext,
    channelId: string,
    status: InboundEventStatus | undefined,
    query: CursorPaginationQuery,
  ): Promise<Page<InboundEventResponse>> {
    await this.channels.get(ctx, channelId);
    return mapPage(await this.events.findPage(channelId, status, query), toInboundEventResponse);
  }

  /** POST /channels/:id/events/:eventId/retry: a FAILED (or stuck RECEIVED) event runs again with a fresh budget. */
  async retry(ctx: TenantContext, channelId: string, eventId: string): Promise<InboundEventResponse> {
    await this.channels.get(ctx, channelId);
    const reset = await this.events.resetForRetry(channelId, eventId);
    if (!reset) {
      const existing = await this.events.findInChannel(channelId, eventId);
      if (!existing) throw AppException.notFound('Event');
      throw AppException.invalidTransition(`An event that is ${existing.status} cannot be retried`);
    }
    await this.enqueue(reset.workspaceId, reset.id, `${reset.id}-manual-${Date.now()}`);
    return toInboundEventResponse(reset);
  }

  /** Records a failed attempt and returns when to retry (null: no retry, the event is FAILED or gone). */
  async recordFailure(eventId: string, error: string): Promise<{ retryInMs: number; attempts: number } | null> {
    const state = await this.events.recordFailure(eventId, error, this.config.outbound.inboundRetryDelaysSeconds);
    if (!state || state.status === 'FAILED' || !state.nextAttemptAt) return null;
    return { retryInMs: Math.max(0, state.nextAttemptAt.getTime() - Date.now()), attempts: state.attempts };
  }
}
