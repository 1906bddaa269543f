import { Injectable, Logger } from '@nestjs/common';
import { preparedStatements } from 'src/core/database/prepared-statements';
import { TransactionHost } from 'src/core/database/transaction-host';
import { ChannelDirectory, type ContactProfile, type OpenedConnection } from 'src/modules/channels';
import type { InboundEventEntity as InboundEvent, InboundEventOutcome } from '../events/inbound-event.entity';
import { InboundEventsRepository } from '../events/inbound-events.repository';
import { InboundEventsService } from '../events/inbound-events.service';
import { InboundProcessor } from './inbound-processor';
import { SenderProfilesService } from './sender-profiles.service';

export type RunOutcome = 'processed' | 'skipped' | 'failed';

/** Backlog events handled by one job at most (a sender's earlier events come first). */
const MAX_BACKLOG = 1_000;

/** A claimed event ready to process: its channel and the sender's profile are known. */
interface ReadyEvent {
  readonly event: InboundEvent;
  readonly connection: OpenedConnection;
  readonly profile: ContactProfile | null;
}

/**
 * Runs stored events through the processor, durably (DESIGN §4.3):
 *
 * 1. claim them (RECEIVED → PROCESSING, attempt counted) — a duplicate job finds nothing to claim;
 * 2. read each sender's profile if the platform needs a call for it (outside any transaction);
 * 3. one event: one transaction under the sender's advisory lock: take the sender's oldest
 *    unprocessed event up to this one, process it, mark it PROCESSED — so one contact's messages
 *    are stored in arrival order even when several workers hold several of them; on PostgreSQL
 *    that transaction commits without waiting for the WAL flush (`markProcessed`, issue 16);
 * 4. several events of one workspace (InboundEventBatcher, `runBatch`): ONE transaction for the
 *    group — every sender's lock taken in one fixed order, the events processed in rounds (each
 *    sender's first event in arrival order, then each sender's second, …; deferred writes such as
 *    the AI replies are written between rounds), all marked PROCESSED in one statement; the
 *    senders' contacts and open conversations are read once for the group (InboundProcessor.lookUpSenders,
 *    KnownSenders: a sender's first event uses them). A sender with an older unprocessed event outside the
 *    group goes through step 3 after the group commits (that path drains the backlog in order); if
 *    anything in the group throws, the whole group rolls back and every event goes through step 3;
 * 5. a failure in step 3 rolls that event back, records the error and schedules a retry with
 *    backoff (the row's `next_attempt_at`, plus a delayed job); after the last attempt it is FAILED.
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
   * connection. No effect on the embedded engine. Events of the current workspace; the outcomes in
   * the order of `eventIds`.
   */
  runBatch(eventIds: readonly string[]): Promise<RunOutcome[]> {
    return preparedStatements.run(() => this.runEvents(eventIds));
  }

  private async runEvents(eventIds: readonly string[]): Promise<RunOutcome[]> {
    const outcomes = new Map<string, RunOutcome>();
    const ready: ReadyEvent[] = [];
    for (const claimed of await this.events.claimMany(eventIds)) {
      try {
        const connection = await this.channels.getOpened(claimed.channelId);
        ready.push({ event: claimed, connection, profile: await this.profiles.lookup(connection, claimed.senderKey) });
      } catch (error) {
        await this.recordFailure(claimed, error);
        outcomes.set(claimed.id, 'failed');
      }
    }
    ready.sort((a, b) => compareSeq(a.event, b.event));
    let oneByOne = ready;
    const grouped = ready.filter((r) => r.event.senderKey !== null);
    if (grouped.length > 1) {
      try {
        const deferred = await this.tx.run(() => this.processTogether(grouped));
        for (const r of grouped) if (!deferred.includes(r)) outcomes.set(r.event.id, 'processed');
        oneByOne = ready.filter((r) => !outcomes.has(r.event.id));
      } catch (error) {
        // Rolled back as a whole (or, if the commit went through, an after-commit hook threw: the
        // events are PROCESSED and the path below finds nothing left to do for them).
        this.logger.debug({ err: error, events: grouped.length }, 'Inbound group rolled back: one event at a time');
      }
    }
    for (const r of oneByOne) outcomes.set(r.event.id, await this.runClaimed(r));
    return eventIds.map((id) => outcomes.get(id) ?? 'skipped');
  }

  /**
   * Inside the group's transaction: locks every sender (one statement, fixed order), processes the
   * events of the senders whose unprocessed events are exactly the ones held here, in rounds (each
   * sender's events in arrival order),
   * and marks them PROCESSED in one statement. Returns the events left for the one-by-one path.
   */
  private async processTogether(group: readonly ReadyEvent[]): Promise<ReadyEvent[]> {
    const bySender = new Map<string, ReadyEvent[]>();
    for (const r of group) {
      const key = senderOf(r.event);
      bySender.set(key, [...(bySender.get(key) ?? []), r]);
    }
    const pending = await this.events.lockSendersAndFindPending(
      [...bySender.values()].map((list) => {
        const last = list[list.length - 1]!.event;
        return { channelId: last.channelId, senderKey: last.senderKey!, maxSeq: last.seq };
      }),
    );
    const pendingBySender = new Map<string, InboundEvent[]>();
    for (const e of pending) {
      const key = senderOf(e);
      pendingBySender.set(key, [...(pendingBySender.get(key) ?? []), e]);
    }
    const deferred: ReadyEvent[] = [];
    const now: { ready: ReadyEvent; event: InboundEvent }[] = [];
    for (const [key, held] of bySender) {
      const found = pendingBySender.get(key) ?? [];
      const same = found.length === held.length && found.every((e, i) => e.id === held[i]!.event.id);
      if (same) found.forEach((event, i) => now.push({ ready: held[i]!, event }));
      else deferred.push(...held);
    }
    now.sort((a, b) => compareSeq(a.event, b.event));
    // Under the locks, before any event runs: the senders' contacts and open conversations, read once.
    const senders = await this.processor.lookUpSenders(
      now.map(({ ready, event }) => ({ event, connection: ready.connection })),
    );
    const processed: { id: string; outcome: InboundEventOutcome; messageId: string | null }[] = [];
    for (const round of inRounds(now, (n) => senderOf(n.event))) {
      // What the previous round deferred (its AI replies, outbox rows) is written before a sender's
      // next message is stored, so a conversation reads as it would one event per transaction.
      if (processed.length > 0) await this.tx.flushPending();
      for (const { ready, event } of round) {
        const result = await this.processor.process(event, ready.connection, ready.profile, senders);
        processed.push({ id: event.id, outcome: result.outcome, messageId: result.messageId });
      }
    }
    await this.events.markProcessedMany(processed);
    return deferred;
  }

  /** One claimed event, one transaction per event (with the sender's earlier events first). */
  private async runClaimed({ event: claimed, connection, profile }: ReadyEvent): Promise<RunOutcome> {
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

/**
 * Events in arrival order split into rounds: the first event of each sender, then the second of each,
 * and so on — each round has at most one event per sender, each sender's events keep their order.
 */
function inRounds<T>(list: readonly T[], senderKey: (item: T) => string): T[][] {
  const rounds: T[][] = [];
  const seen = new Map<string, number>();
  for (const item of list) {
    const key = senderKey(item);
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    (rounds[n] ??= []).push(item);
  }
  return rounds;
}

/** The sender's lock key within the workspace (channel + sender). */
function senderOf(event: InboundEvent): string {
  return `${event.channelId}:${event.senderKey ?? ''}`;
}

/** Arrival order (`seq` is a bigint, read as a string). */
function compareSeq(a: InboundEvent, b: InboundEvent): number {
  return a.seq.length - b.seq.length || (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0);
}
