import { Injectable, Logger } from '@nestjs/common';
import { preparedStatements } from 'src/core/database/prepared-statements';
import { TransactionHost } from 'src/core/database/transaction-host';
import { ChannelDirectory, type ContactProfile, type OpenedConnection } from 'src/modules/channels';
import type { InboundEventEntity as InboundEvent } from '../events/inbound-event.entity';
import { InboundEventsRepository } from '../events/inbound-events.repository';
import { InboundEventsService } from '../events/inbound-events.service';
import { InboundProcessor } from './inbound-processor';
import { SenderProfilesService } from './sender-profiles.service';

export type RunOutcome = 'processed' | 'skipped' | 'failed';

/** Backlog events handled by one job at most (a sender's earlier events come first). */
const MAX_BACKLOG = 1_000;

/**
 * Runs one stored event through the processor, durably (DESIGN §4.3):
 *
 * 1. claim it (RECEIVED → PROCESSING, attempt counted) — a duplicate job finds nothing to claim;
 * 2. read the sender's profile if the platform needs a call for it (outside any transaction);
 * 3. one transaction per event, each under the sender's advisory lock: take the sender's oldest
 *    unprocessed event up to this one, process it, mark it PROCESSED — so one contact's messages
 *    are stored in arrival order even when several workers hold several of them; on PostgreSQL
 *    that transaction commits without waiting for the WAL flush (`markProcessed`, issue 16);
 * 4. a failure rolls that event back, records the error and schedules a retry with backoff (the
 *    row's `next_attempt_at`, plus a delayed job); after the last attempt the event is FAILED.
 */
@Injectable()
export class InboundEventRunner {
  private readonly logger = new Logger('InboundEvents');

  constructor(
    private readonly tx: TransactionHost,
    private readonly events: InboundEventsRepository,
    private readonly log: InboundEventsService,
    private readonly channels: ChannelDirectory,
    private readonly profiles: SenderProfilesService,
    private readonly processor: InboundProcessor,
  ) {}

  /**
   * Runs with named prepared statements on PostgreSQL (core/database/prepared-statements): the
   * pipeline sends the same few statement texts for every event, each parsed and planned once per
   * connection. No effect on the embedded engine.
   */
  run(eventId: string): Promise<RunOutcome> {
    return preparedStatements.run(() => this.runEvent(eventId));
  }

  private async runEvent(eventId: string): Promise<RunOutcome> {
    const claimed = await this.events.claim(eventId);
    if (!claimed) return 'skipped';
    let connection: OpenedConnection;
    let profile: ContactProfile | null;
    try {
      connection = await this.channels.getOpened(claimed.channelId);
      profile = await this.profiles.lookup(connection, claimed.senderKey);
    } catch (error) {
      await this.recordFailure(claimed, error);
      return 'failed';
    }
    for (let round = 0; round < MAX_BACKLOG; round++) {
      let current: InboundEvent = claimed;
      try {
        const done = await this.tx.run(async () => {
          const next = await this.nextInArrivalOrder(claimed);
          if (!next) return true;
          current = next;
          const result = await this.processor.process(next, connection, profile);
          await this.events.markProcessed(next.id, result.outcome, result.messageId);
          return next.id === claimed.id;
        });
        if (done) return 'processed';
      } catch (error) {
        await this.recordFailure(current, error);
        if (current.id === claimed.id) return 'failed';
      }
    }
    return 'processed';
  }

  /** Under the sender's lock: the sender's oldest event still to process, up to the claimed one. */
  private async nextInArrivalOrder(claimed: InboundEvent): Promise<InboundEvent | null> {
    if (claimed.senderKey === null) {
      const self = await this.events.findForUpdate(claimed.id);
      return self && self.status === 'PROCESSING' ? self : null;
    }
    return this.events.lockSenderAndFindNext(claimed.channelId, claimed.senderKey, claimed.seq);
  }

  private async recordFailure(event: InboundEvent, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    this.logger.warn({ err: error, eventId: event.id }, 'Inbound event failed');
    try {
      const retry = await this.tx.run(() => this.log.recordFailure(event.id, message));
      if (retry)
        await this.log.enqueue(event.workspaceId, event.id, `${event.id}-retry-${retry.attempts}`, retry.retryInMs);
    } catch (bookkeeping) {
      // The sweep finds the event (PROCESSING or RECEIVED) and runs it again.
      this.logger.error({ err: bookkeeping, eventId: event.id }, 'Could not record an inbound failure');
    }
  }
}
