import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { EventBus } from 'src/core/events/event-bus';
import { JobName } from 'src/core/queue/job-names';
import { JOB_QUEUE, type JobPayload, type JobQueue } from 'src/core/queue/job-queue.port';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import { ChannelDirectory, ChannelPlatforms, type OutboundContent, PermanentDeliveryError } from 'src/modules/channels';
import { toMessageResponse } from '../inbox.mapper';
import type { MessageEntity } from '../message.entity';
import { type ClaimedDelivery, MessagesRepository, type SentMark, type SentMarkResult } from '../messages.repository';
import { SentMarks, type SentMarkSlot } from './sent-marks';

export interface OutboundDeliveryJobData extends JobPayload {
  readonly messageId: string;
  /** The message's conversation, when the enqueuer knows it: orders this process's attempts (`deliver`). */
  readonly conversationId?: string;
}

/** The first attempts of replies stored together (a pipeline group's answers): one job for all. */
export interface OutboundDeliveriesJobData extends JobPayload {
  readonly deliveries: readonly { readonly messageId: string; readonly conversationId: string }[];
}

export type DeliveryOutcome = 'sent' | 'retrying' | 'failed' | 'skipped';

/** A message the platform accepted, with the row it was claimed as (for its `message.sent` event). */
interface AcceptedSend extends SentMark {
  readonly message: MessageEntity;
}

/**
 * How long a group job's accepted sends wait for its other sends before their SENT marks are written
 * without them (SentMarks): a slow platform call holds the others' marks back at most this long.
 */
const SENT_MARKS_WAIT_MS = 25;

/**
 * Delivers stored OUTBOUND messages through the conversation's channel (DESIGN §4.4), in order per
 * conversation (a message waits while an earlier one of its conversation is PENDING). One attempt
 * per job; a failed attempt leaves the message PENDING with `next_attempt_at` and schedules the next
 * job after `OUTBOUND_RETRY_DELAYS` (5 s, 30 s, 2 min, 10 min, 1 h: 6 attempts); the last failure,
 * or one retrying cannot fix, ends FAILED with `deliveryError`. Any 2xx → SENT.
 */
@Injectable()
export class OutboundDeliveryService {
  private readonly logger = new Logger('OutboundDelivery');
  /** Per conversation: the last attempt started in this process (its settled promise). */
  private readonly inFlight = new Map<string, { readonly done: Promise<void> }>();
  /** Messages whose attempt waits in `inFlight` behind an earlier one of its conversation. */
  private readonly waiting = new Set<string>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    private readonly messages: MessagesRepository,
    private readonly channels: ChannelDirectory,
    private readonly platforms: ChannelPlatforms,
    private readonly bus: EventBus,
    private readonly tx: TransactionHost,
  ) {}

  /** Total attempts per message. */
  get maxAttempts(): number {
    return this.config.outbound.retryDelaysSeconds.length + 1;
  }

  /** Queues a delivery. Never throws: a lost enqueue is recovered by the sweep. */
  async enqueue(
    workspaceId: string,
    messageId: string,
    jobId: string,
    delayMs = 0,
    conversationId?: string,
  ): Promise<void> {
    const data: OutboundDeliveryJobData = { workspaceId, messageId, ...(conversationId ? { conversationId } : {}) };
    await this.queueOrWarn(JobName.OutboundMessageDeliver, data, { jobId, delayMs }, [messageId]);
  }

  /** The one enqueue of this service: a failure is logged, never thrown (the recovery sweep re-queues). */
  private async queueOrWarn(
    name: JobName,
    data: OutboundDeliveryJobData | OutboundDeliveriesJobData,
    options: { readonly jobId: string; readonly delayMs?: number },
    messageIds: readonly string[],
  ): Promise<void> {
    try {
      await this.jobs.enqueue(name, data, options);
    } catch (error) {
      this.logger.warn({ err: error, messageIds }, 'Could not enqueue a delivery; the recovery sweep will pick it up');
    }
  }

  /**
   * Queues the first attempts of replies stored together (`MessagesService.sendReplies`: a pipeline
   * group's answers) as ONE job, whose attempts run side by side (`deliverAll`): a group's replies
   * cost one job's Redis round trips instead of one job each (issue 16 item 3). One reply keeps its
   * own job. Never throws: a lost enqueue is recovered by the sweep.
   */
  async enqueueAll(
    workspaceId: string,
    messages: readonly { readonly id: string; readonly conversationId: string }[],
  ): Promise<void> {
    const [first] = messages;
    if (!first) return;
    if (messages.length === 1) return this.enqueue(workspaceId, first.id, first.id, 0, first.conversationId);
    const data: OutboundDeliveriesJobData = {
      workspaceId,
      deliveries: messages.map((m) => ({ messageId: m.id, conversationId: m.conversationId })),
    };
    await this.queueOrWarn(
      JobName.OutboundMessagesDeliver,
      data,
      { jobId: `${first.id}-group` },
      messages.map((m) => m.id),
    );
  }

  /**
   * The attempts of one `enqueueAll` job, side by side (those of one conversation in order, as
   * `deliver` runs them). The first message of each conversation with no attempt in flight in this
   * process is claimed together with the others in ONE statement (`claimManyForDelivery`); the rest
   * go through `deliver`. Every attempt runs to its end; the job then fails if one of them threw.
   */
  async deliverAll(deliveries: OutboundDeliveriesJobData['deliveries']): Promise<DeliveryOutcome[]> {
    const together = new Set<string>();
    const conversations = new Set<string>();
    for (const d of deliveries) {
      if (!this.inFlight.has(d.conversationId) && !conversations.has(d.conversationId)) together.add(d.messageId);
      conversations.add(d.conversationId);
    }
    const claims = together.size > 1 ? this.messages.claimManyForDelivery([...together]) : null;
    const workspaceId = getTenantContext().workspaceId;
    const marks = new SentMarks<AcceptedSend, SentMarkResult>(
      (list) => this.markSent(workspaceId, list),
      SENT_MARKS_WAIT_MS,
    );
    const runs = deliveries.map((d) => {
      if (!claims || !together.has(d.messageId)) return this.deliver(d.messageId, d.conversationId);
      const slot = marks.slot();
      return this.inOrder(d.conversationId, d.messageId, async () => {
        try {
          const claimed = (await claims).get(d.messageId);
          return claimed ? await this.send(claimed, slot) : 'skipped';
        } finally {
          slot.leave();
        }
      });
    });
    const settled = await Promise.allSettled(runs);
    const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
    return settled.map((r) => (r as PromiseFulfilledResult<DeliveryOutcome>).value);
  }

  /**
   * One attempt. With the conversation known (`conversationId`, as every enqueue of this process
   * gives it), attempts of one conversation in this process run one after the other: a later reply
   * whose job starts while an earlier one is being sent waits for it here instead of finding it
   * PENDING (a wasted claim) and being queued again by `releaseNext`.
   */
  deliver(messageId: string, conversationId?: string): Promise<DeliveryOutcome> {
    if (!conversationId) return this.attempt(messageId);
    return this.inOrder(conversationId, messageId, () => this.attempt(messageId));
  }

  /** Runs `run` once the attempt of `conversationId` in flight in this process (if any) is done, as the conversation's last. */
  private inOrder(
    conversationId: string,
    messageId: string,
    run: () => Promise<DeliveryOutcome>,
  ): Promise<DeliveryOutcome> {
    const previous = this.inFlight.get(conversationId);
    this.waiting.add(messageId);
    const mine = (previous?.done ?? Promise.resolve()).then(() => {
      this.waiting.delete(messageId);
      return run();
    });
    const done = mine.then(
      () => undefined,
      () => undefined,
    );
    const entry = { done };
    this.inFlight.set(conversationId, entry);
    void done.then(() => {
      if (this.inFlight.get(conversationId) === entry) this.inFlight.delete(conversationId);
    });
    return mine;
  }

  private async attempt(messageId: string): Promise<DeliveryOutcome> {
    // The claim writes the row in a synchronous commit of its own, which flushes the WAL through
    // every earlier commit — the pipeline's asynchronous one that stored an automatic reply included
    // (issue 16) — so nothing is sent that a database crash could take back.
    const claimed = await this.messages.claimForDelivery(messageId);
    return claimed ? this.send(claimed) : 'skipped';
  }

  /**
   * A claimed message (one statement, joined with the conversation's channel and recipient): send,
   * then SENT, `message.sent` and the conversation's next pending reply in one statement — two
   * statements per delivered message, fewer for a group job's (claimed together, and marked SENT
   * together through `slot`: SentMarks), no transaction around them.
   */
  private async send(
    { message, to }: ClaimedDelivery,
    slot?: SentMarkSlot<AcceptedSend, SentMarkResult>,
  ): Promise<DeliveryOutcome> {
    const workspaceId = getTenantContext().workspaceId;
    try {
      if (!to) throw AppException.notFound('Conversation');
      const connection = await this.channels.getOpened(to.channelId);
      if (connection.status !== 'ACTIVE') throw new PermanentDeliveryError('The channel is disconnected');
      const result = await this.platforms.send(connection, to.recipientId, contentOf(message));
      const sent: AcceptedSend = { message, sentAt: new Date(), externalId: result.externalId };
      const marked = slot ? await slot.mark(sent) : (await this.markSent(workspaceId, [sent]))[0]!;
      if (!marked.updated) throw AppException.notFound('Message');
      await this.queueNext(workspaceId, message, marked.nextPending);
      return 'sent';
    } catch (error) {
      slot?.leave();
      return this.attemptFailed(workspaceId, message, error);
    }
  }

  /** SENT, in one statement with their `message.sent` events; the results in the order given. */
  private async markSent(workspaceId: string, sends: readonly AcceptedSend[]): Promise<SentMarkResult[]> {
    const events = this.bus.prepareAll(
      'message.sent',
      workspaceId,
      sends.map(({ message, sentAt, externalId }) => {
        const sent: MessageEntity = {
          ...message,
          deliveryStatus: 'SENT',
          deliveryError: null,
          nextAttemptAt: null,
          sentAt,
          externalId: externalId ?? message.externalId,
        };
        return { message: toMessageResponse(sent), conversationId: sent.conversationId };
      }),
      3,
    );
    const marked = await this.messages.markSent(sends, events);
    await events.written();
    return sends.map((s) => marked.get(s.message.id) ?? { updated: false, nextPending: null });
  }

  private async attemptFailed(workspaceId: string, message: MessageEntity, error: unknown): Promise<DeliveryOutcome> {
    const reason = error instanceof Error ? error.message : String(error);
    const delays = this.config.outbound.retryDelaysSeconds;
    const attempt = message.deliveryAttempts;
    const retryable = !(error instanceof PermanentDeliveryError) && attempt < this.maxAttempts;
    const delaySeconds = delays[Math.min(attempt - 1, delays.length - 1)] ?? 0;
    const nextAttemptAt = retryable ? new Date(Date.now() + delaySeconds * 1000) : null;
    const updated = await this.tx.run(async () => {
      const failed = await this.messages.markAttemptFailed(message.id, reason, nextAttemptAt);
      if (!nextAttemptAt) {
        await this.bus.publish('message.failed', workspaceId, {
          message: toMessageResponse(failed),
          conversationId: failed.conversationId,
        });
      }
      return failed;
    });
    if (nextAttemptAt) {
      await this.enqueue(
        workspaceId,
        message.id,
        `${message.id}-attempt-${attempt + 1}`,
        delaySeconds * 1000,
        message.conversationId,
      );
      return 'retrying';
    }
    this.logger.warn({ messageId: updated.id, attempts: attempt, reason }, 'Outbound message failed');
    await this.releaseNext(workspaceId, message);
    return 'failed';
  }

  /**
   * Per-conversation order: a message is claimed only when every earlier OUTBOUND message of its
   * conversation is SENT or FAILED, so a later one whose job ran meanwhile was held back. Once this
   * one is done, queue the conversation's next pending message (after the commit above, so its
   * claim sees this one finished). Never throws: the recovery sweep is the safety net.
   */
  private async releaseNext(workspaceId: string, done: MessageEntity): Promise<void> {
    try {
      await this.queueNext(workspaceId, done, await this.messages.nextPendingOutbound(done.conversationId, done.seq));
    } catch (error) {
      this.logger.warn({ err: error, messageId: done.id }, 'Could not queue the next message of the conversation');
    }
  }

  /** Queues `next` (read after `done` finished; a sent message's own statement reads it) unless its job already waits here. */
  private async queueNext(workspaceId: string, done: MessageEntity, next: string | null): Promise<void> {
    // Its job already waits in this process behind this one (`deliver`): no second job.
    if (next && !this.waiting.has(next)) {
      await this.enqueue(workspaceId, next, `${next}-after-${done.id}`, 0, done.conversationId);
    }
  }
}

function contentOf(message: MessageEntity): OutboundContent {
  const image = message.attachments.find((a) => a.type.toLowerCase() === 'image');
  const type = message.type === 'BUTTONS' ? 'BUTTONS' : message.type === 'IMAGE' && image ? 'IMAGE' : 'TEXT';
  return { type, text: message.text, imageUrl: image?.url ?? null, buttons: message.buttons ?? [] };
}
