import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DiscoveryService } from '@nestjs/core';
import { Redis } from 'ioredis';
import { type TestApp, createTestApp, eventually, usingRedis } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import { type CustomChannel, connectCustom, inboxEnv, postCustom, sql } from './inbox-helpers';
import { MockPlatform } from './mock-platform';

/**
 * Issue 16 (DESIGN §13: acks keep their latency while the pipeline works): while an `api` process
 * acknowledges webhook events faster than PIPELINE_YIELD_ACK_RATE per second, it keeps a flag with a
 * TTL in Redis and the `worker` processes run the inbound queue at PIPELINE_YIELD_CONCURRENCY; when
 * the acks stop, the flag expires and the workers return to their full concurrency. At 0 (the default
 * since session 29) the worker is paused instead, for at most PIPELINE_YIELD_MAX_MS in a row. The
 * backlog still drains, and nothing acknowledged is lost.
 * Real api and worker roles on one PostgreSQL database and one Redis; no fake timers.
 */
const ACK_RATE = 20;
/** The inbound handler's concurrency (its @JobHandler) and the lowered one set below. */
const FULL = 48;

interface InboundProcessor {
  readonly yielding: boolean;
  readonly worker: { readonly concurrency: number; isPaused(): boolean };
}

function inboundProcessorOf(app: TestApp): InboundProcessor {
  const wrapper = app.app
    .get(DiscoveryService)
    .getProviders()
    .find((w) => w.name === 'InboundQueueProcessor');
  if (!wrapper?.instance) throw new Error('no inbound queue processor in this process');
  return wrapper.instance as InboundProcessor;
}

/** POSTs `count` signed messages, `parallel` at a time; returns the acknowledged event ids. */
async function flood(
  api: TestApp,
  channel: CustomChannel,
  tag: string,
  count: number,
  parallel = 20,
): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        const i = next++;
        const res = await postCustom(api, channel, {
          senderId: `${tag}-${i % 25}`,
          text: `${tag} ${i}`,
          messageId: `${tag}-${i}`,
        });
        expect(res.status).toBe(200);
        ids.push(res.body.eventId as string);
      }
    }),
  );
  return ids;
}

async function statuses(app: TestApp, ids: readonly string[]): Promise<Record<string, number>> {
  const rows = await sql<{ status: string; n: string }>(
    app,
    'SELECT status, count(*) AS n FROM inbound_events WHERE id = ANY($1::uuid[]) GROUP BY status',
    [ids],
  );
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

/** LOWERED: PIPELINE_YIELD_CONCURRENCY (0 = the worker pauses). */
const yieldSuite = (LOWERED: number) => () => {
  let mock: MockPlatform;
  let api: TestApp;
  let worker: TestApp;
  let redis: Redis;
  let admin: Session;
  let channel: CustomChannel;
  let flagKey: string;
  beforeAll(async () => {
    mock = await MockPlatform.start();
    const yieldEnv = { PIPELINE_YIELD_ACK_RATE: String(ACK_RATE), PIPELINE_YIELD_CONCURRENCY: String(LOWERED) };
    api = await createTestApp({ env: inboxEnv(mock, { APP_ROLE: 'api', ...yieldEnv }) });
    worker = await createTestApp({
      env: inboxEnv(mock, {
        APP_ROLE: 'worker',
        QUEUE_PREFIX: api.config.redis.prefix,
        ENCRYPTION_KEY: api.config.encryptionKey.toString('base64'),
        ...yieldEnv,
      }),
      reuse: { dataDir: api.dataDir, databaseUrl: api.config.db.url! },
    });
    redis = new Redis(process.env.REDIS_URL!);
    flagKey = `${api.config.redis.prefix}:inbound:yield`;
    admin = await signupWorkspace(api, 'Yield');
    await setPlan(api, admin.workspaceId, 'ENTERPRISE');
    channel = await connectCustom(api, admin, mock);
  });
  afterAll(async () => {
    redis?.disconnect();
    await worker?.close({ keepData: true });
    await api?.close();
    await mock?.close();
  });

  it('engages while the api acknowledges fast, releases when it stops, and the backlog drains', async () => {
    const processor = inboundProcessorOf(worker);
    expect(processor.worker.concurrency).toBe(FULL);
    expect(await redis.exists(flagKey)).toBe(0);

    // Watch the flag and the worker from the test while the flood runs.
    const seen = { flag: false, flagTtlMs: 0, yielding: false, concurrency: FULL, paused: false };
    let flooding = true;
    const watch = (async () => {
      while (flooding) {
        const ttl = await redis.pttl(flagKey);
        if (ttl > 0) Object.assign(seen, { flag: true, flagTtlMs: Math.max(seen.flagTtlMs, ttl) });
        if (processor.yielding)
          Object.assign(seen, {
            yielding: true,
            concurrency: processor.worker.concurrency,
            paused: seen.paused || processor.worker.isPaused(),
          });
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    // Several rounds, so the flood lasts well over a few poll periods of the worker whatever the machine's speed.
    const ids: string[] = [];
    for (let round = 0; round < 20 && !(seen.flag && seen.yielding && ids.length >= 300); round++)
      ids.push(...(await flood(api, channel, `f${round}`, 60)));
    flooding = false;
    await watch;

    expect(seen.flag).toBe(true);
    expect(seen.flagTtlMs).toBeLessThanOrEqual(500); // a flag that expires by itself, 0.5 s after its last refresh
    expect(seen.yielding).toBe(true);
    // A lowered concurrency, or (0) a paused worker at its full concurrency.
    expect(seen.concurrency).toBe(LOWERED || FULL);
    expect(seen.paused).toBe(LOWERED === 0);

    // The acks stopped: the flag expires and the worker returns to its full concurrency.
    await eventually(async () => {
      expect(await redis.exists(flagKey)).toBe(0);
      expect(processor.yielding).toBe(false);
      expect(processor.worker.concurrency).toBe(FULL);
      expect(processor.worker.isPaused()).toBe(false);
    }, 10_000);

    // Nothing acknowledged is lost and the backlog drains.
    await eventually(async () => expect(await statuses(api, ids)).toEqual({ PROCESSED: ids.length }), 120_000, 250);
  }, 240_000);

  it('does not engage below the rate', async () => {
    const processor = inboundProcessorOf(worker);
    const ids: string[] = [];
    let flagged = false;
    // About 5 acks a second, a quarter of the rate, for 2 s.
    for (let i = 0; i < 10; i++) {
      ids.push(...(await flood(api, channel, `slow${i}`, 1, 1)));
      await new Promise((resolve) => setTimeout(resolve, 200));
      if ((await redis.exists(flagKey)) === 1 || processor.yielding) flagged = true;
    }
    expect(flagged).toBe(false);
    expect(processor.worker.concurrency).toBe(FULL);
    expect(processor.worker.isPaused()).toBe(false);
    await eventually(async () => expect(await statuses(api, ids)).toEqual({ PROCESSED: ids.length }), 60_000, 250);
  }, 120_000);
};

(shared ? describe : describe.skip)(
  'the pipeline yields to an ack flood at a lowered concurrency (api and worker roles, PostgreSQL + Redis)',
  yieldSuite(2),
);
(shared ? describe : describe.skip)(
  'the pipeline pauses for an ack flood (PIPELINE_YIELD_CONCURRENCY=0, the default; PostgreSQL + Redis)',
  yieldSuite(0),
);

// In-process jobs (embedded engine, or no Redis): nothing yields, the ack flood is processed as before.
(usingRedis() ? describe.skip : describe)('an ack flood with in-process jobs', () => {
  let mock: MockPlatform;
  let t: TestApp;
  let channel: CustomChannel;
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock, { PIPELINE_YIELD_ACK_RATE: String(ACK_RATE) }) });
    const admin = await signupWorkspace(t, 'Inline');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
    channel = await connectCustom(t, admin, mock);
  });
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  it('has no yielding worker and processes every acknowledged event', async () => {
    expect(() => inboundProcessorOf(t)).toThrow(/no inbound queue processor/);
    const ids = await flood(t, channel, 'inline', 120);
    await t.drain();
    await eventually(async () => expect(await statuses(t, ids)).toEqual({ PROCESSED: ids.length }), 60_000, 250);
  }, 120_000);
});
