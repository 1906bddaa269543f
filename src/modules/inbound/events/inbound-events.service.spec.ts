import { describe, expect, it } from '@jest/globals';
import type { AppConfig } from 'src/core/config/app-config';
import type { JobQueue } from 'src/core/queue/job-queue.port';
import type { ChannelsService, InboundEventDraft } from 'src/modules/channels';
import type { InboundEventsRepository } from './inbound-events.repository';
import { ENQUEUE_LINGER_MS, ENQUEUE_MAX_BATCH, InboundEventsService } from './inbound-events.service';

/** The service on fakes: a repository that numbers rows, a queue that records each `enqueueMany`. */
function service() {
  let next = 0;
  const enqueued: { at: number; ids: string[] }[] = [];
  const acknowledged: { name: string; count: number }[] = [];
  const repository = {
    insertReceived: async (rows: readonly unknown[]) => rows.map(() => `e${++next}`),
  };
  const jobs = {
    enqueueMany: async (_name: string, items: readonly { data: { eventId: string } }[]) => {
      enqueued.push({ at: performance.now(), ids: items.map((j) => j.data.eventId) });
    },
    acknowledged: (name: string, count: number) => void acknowledged.push({ name, count }),
  };
  const config = { db: { url: null, ackPoolSize: 0 }, outbound: { inboundRetryDelaysSeconds: [1] } };
  const events = new InboundEventsService(
    config as unknown as AppConfig,
    jobs as unknown as JobQueue,
    repository as unknown as InboundEventsRepository,
    {} as ChannelsService,
  );
  return { events, enqueued, acknowledged };
}

const draft = (sender: string) =>
  ({
    connection: { id: 'c1', workspaceId: 'w1', type: 'CUSTOM' },
    senderKey: sender,
    externalId: null,
    payload: { senderId: sender, text: 'hi' },
  }) as unknown as InboundEventDraft;

describe('InboundEventsService: enqueueing after the answer (issue 16)', () => {
  it('puts the acks of a few milliseconds on the queue in one addBulk, after the answer', async () => {
    const { events, enqueued, acknowledged } = service();
    const started = performance.now();
    const first = await events.store([draft('a')]);
    expect(enqueued).toEqual([]); // answered before anything is enqueued
    const second = await events.store([draft('b'), draft('c')]);
    await new Promise((r) => setTimeout(r, ENQUEUE_LINGER_MS * 4));
    expect(enqueued.map((e) => e.ids)).toEqual([[first.eventId, ...second.eventIds]]);
    expect(enqueued[0]!.at - started).toBeGreaterThanOrEqual(ENQUEUE_LINGER_MS - 1); // the timer fired for real
    // The batch's acks are reported once (the pipeline yields to an ack flood: core/queue/pipeline-yield.ts).
    expect(acknowledged).toEqual([{ name: 'inbound.event.process', count: 3 }]);
    // A later ack starts a new batch.
    const third = await events.store([draft('d')]);
    await new Promise((r) => setTimeout(r, ENQUEUE_LINGER_MS * 4));
    expect(enqueued.map((e) => e.ids)).toEqual([[first.eventId, ...second.eventIds], [third.eventId]]);
  });

  it('does not wait for the timer once ENQUEUE_MAX_BATCH events are waiting', async () => {
    const { events, enqueued } = service();
    const stored = await events.store(Array.from({ length: ENQUEUE_MAX_BATCH }, (_, i) => draft(`s${i}`)));
    await Promise.resolve();
    expect(enqueued.map((e) => e.ids)).toEqual([stored.eventIds]);
  });

  it('enqueues what is still waiting when the application shuts down', async () => {
    const { events, enqueued } = service();
    const stored = await events.store([draft('a')]);
    await events.beforeApplicationShutdown();
    expect(enqueued.map((e) => e.ids)).toEqual([[stored.eventId]]);
    await new Promise((r) => setTimeout(r, ENQUEUE_LINGER_MS * 4));
    expect(enqueued).toHaveLength(1); // the timer was cancelled: nothing enqueued twice
  });
});
