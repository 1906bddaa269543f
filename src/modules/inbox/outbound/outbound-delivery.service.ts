import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { TransactionHost } from 'src/core/database/transaction-host';
import { EventBus } from 'src/core/events/event-bus';
import { JobName } from 'src/core/queue/job-names';
import { JOB_QUEUE, type JobPayload, type JobQueue } from 'src/core/queue/job-queue.port';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import { ChannelDirectory, ChannelPlatforms, type OutboundContent, PermanentDeliveryError } from 'src/modules/channels';
import { ConversationsRepository } from '../conversations.repository';
import { toMessageResponse } from '../inbox.mapper';
import type { MessageEntity } from '../message.entity';
import { MessagesRepository } from '../messages.repository';

export interface OutboundDeliveryJobData extends JobPayload {
  readonly messageId: string;
}

export type DeliveryOutcome = 'sent' | 'retrying' | 'failed' | 'skipped';

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

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
    private readonly messages: MessagesRepository,
    private readonly conversations: ConversationsRepository,
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
  async enqueue(workspaceId: string, messageId: string, jobId: string, delayMs = 0): Promise<void> {
    const data: OutboundDeliveryJobData = { workspaceId, messageId };
    try {
      await this.jobs.enqueue(JobName.OutboundMessageDeliver, data, { jobId, delayMs });
    } catch (error) {
      this.logger.warn({ err: error, messageId }, 'Could not enqueue a delivery; the recovery sweep will pick it up');
    }
  }

  async deliver(messageId: string): Promise<DeliveryOutcome> {
    // The claim writes the row in a synchronous commit of its own, which flushes the WAL through
    // every earlier commit — the pipeline's asynchronous one that stored an automatic reply included
    // (issue 16) — so nothing is sent that a database crash could take back.
    const message = await this.messages.claimForDelivery(messageId);
    if (!message) return 'skipped';
    const workspaceId = getTenantContext().workspaceId;
    try {
      const conversation = await this.conversations.getById(message.conversationId);
      const connection = await this.channels.getOpened(conversation.channelId);
      if (connection.status !== 'ACTIVE') throw new PermanentDeliveryError('The channel is disconnected');
      const result = await this.platforms.send(connection, conversation.contactExternalId, contentOf(message));
      await this.tx.run(async () => {
        const sent = await this.messages.markSent(message.id, result.externalId);
        await this.bus.publish('message.sent', workspaceId, {
          message: toMessageResponse(sent),
          conversationId: sent.conversationId,
        });
      });
      await this.releaseNext(workspaceId, message);
      return 'sent';
    } catch (error) {
      return this.attemptFailed(workspaceId, message, error);
    }
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
      await this.enqueue(workspaceId, message.id, `${message.id}-attempt-${attempt + 1}`, delaySeconds * 1000);
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
      const next = await this.messages.nextPendingOutbound(done.conversationId, done.seq);
      if (next) await this.enqueue(workspaceId, next, `${next}-after-${done.id}`);
    } catch (error) {
      this.logger.warn({ err: error, messageId: done.id }, 'Could not queue the next message of the conversation');
    }
  }
}

function contentOf(message: MessageEntity): OutboundContent {
  const image = message.attachments.find((a) => a.type.toLowerCase() === 'image');
  const type = message.type === 'BUTTONS' ? 'BUTTONS' : message.type === 'IMAGE' && image ? 'IMAGE' : 'TEXT';
  return { type, text: message.text, imageUrl: image?.url ?? null, buttons: message.buttons ?? [] };
}
