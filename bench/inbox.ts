/**
 * Inbox bench (DESIGN §13, §15): webhook acknowledgement and the inbound pipeline, on the embedded
 * engine (inline jobs) and, with DATABASE_URL + REDIS_URL, on PostgreSQL with BullMQ workers
 * (one `api` and one `worker` process, the docker-compose topology).
 *
 * Every request is a Custom Channel message signed with the connection's inbound secret. For each
 * engine, in one run and under the same conditions:
 *   1. ack throughput: closed loop, 50 connections, our route vs a bare Express 5 route parsing the
 *      same body (bench/baseline-express.ts) — ratio = ours ÷ bare.
 *   2. ack latency: open loop at 500 req/s (latency from each request's due time, see lib/load.ts),
 *      ours vs bare; the pipeline processes the messages at the same time, as in production.
 *   3. nothing lost: every acknowledged message id is looked up among the stored events.
 *   4. pipeline: PIPELINE messages from 300 customers; throughput counts messages that are stored,
 *      in an assigned conversation and ticketed, divided by (last event processed − first request).
 *      FAILED events are reported. Three agents are ONLINE with room for every conversation.
 */
import { randomBytes } from 'node:crypto';
import { type LoadResult, describe, load } from './lib/load';
import {
  type PipelineService,
  burst,
  describeBurst,
  forEachEngine,
  setupInbox,
  signed,
  sink,
  stored,
  waitDrained,
} from './lib/pipeline';
import { serviceDb, startBaseline, stop } from './lib/service';
import { type BenchContext, type BenchRow, atLeast, below, round } from './lib/types';

export const name = 'inbox';

const CONNECTIONS = 50;
const RATE = 500;

/** Runs `load` and remembers which request numbers were acknowledged (as `<tag>-<i>`). */
function acked(options: Parameters<typeof load>[0], tag: string, ackedIds: Set<string>): Promise<LoadResult> {
  return load({ ...options, onOk: (i) => ackedIds.add(`${tag}-${i}`) });
}

async function round1(ctx: BenchContext, p: PipelineService): Promise<BenchRow[]> {
  const { engine, service } = p;
  const seconds = ctx.short ? 2 : 10;
  const pipelineMessages = ctx.short ? 300 : 3000;
  const replies = await sink();
  const baseline = await startBaseline();
  const db = await serviceDb(service);
  const rows: BenchRow[] = [];
  try {
    const channel = await setupInbox(service, `${replies.url}/replies`);
    const run = randomBytes(3).toString('hex');
    const ackedIds = new Set<string>();
    const body = signed(channel.secret, `t${run}`, 1000);

    ctx.log(`${engine}: ack throughput (closed loop, ${CONNECTIONS} connections, ${seconds} s each)`);
    const bareMax = await load({
      url: baseline.url,
      connections: CONNECTIONS,
      durationMs: seconds * 1000,
      build: body,
    });
    const oursMax = await acked(
      {
        url: channel.url,
        connections: CONNECTIONS,
        durationMs: seconds * 1000,
        build: signed(channel.secret, `t${run}`, 1000),
      },
      `t${run}`,
      ackedIds,
    );
    await waitDrained(db, 600_000);

    ctx.log(`${engine}: ack latency (open loop ${RATE}/s, ${seconds} s each)`);
    const bareOpen = await load({
      url: baseline.url,
      connections: CONNECTIONS,
      rate: RATE,
      durationMs: seconds * 1000,
      build: body,
    });
    const oursOpen = await acked(
      {
        url: channel.url,
        connections: CONNECTIONS,
        rate: RATE,
        durationMs: seconds * 1000,
        build: signed(channel.secret, `o${run}`, 1000),
      },
      `o${run}`,
      ackedIds,
    );
    await waitDrained(db, 600_000);

    const storedT = await stored(db, `t${run}`);
    const storedO = await stored(db, `o${run}`);
    const ackedCount = oursMax.ok + oursOpen.ok;
    const storedCount = storedT.texts.size + storedO.texts.size;
    const missing = [...ackedIds].filter((id) => !storedT.texts.has(id) && !storedO.texts.has(id)).length;

    const embedded = engine === 'embedded';
    const throughputRatio = oursMax.achieved / bareMax.achieved;
    rows.push({
      figure: `ack throughput, ${CONNECTIONS} connections (${engine})`,
      value: round(oursMax.achieved, 0),
      unit: 'req/s',
      ...(embedded ? atLeast(oursMax.achieved, 500) : { target: '≥ 50% of bare', pass: throughputRatio >= 0.5 }),
      ratio: round(throughputRatio, 3),
      baseline: `bare Express ${bareMax.achieved.toFixed(0)} req/s`,
      note: `ours: ${describe(oursMax)} | bare: ${describe(bareMax)}`,
    });
    rows.push({
      figure: `ack p99 at ${RATE}/s offered (${engine})`,
      value: round(oursOpen.p99),
      unit: 'ms',
      ...below(oursOpen.p99, embedded ? 150 : 50),
      ratio: round(oursOpen.p99 / bareOpen.p99, 2),
      baseline: `bare Express p99 ${bareOpen.p99.toFixed(1)} ms`,
      note: `ours: ${describe(oursOpen)} | bare: ${describe(bareOpen)}`,
    });
    rows.push({
      figure: `ack achieved rate at ${RATE}/s offered (${engine})`,
      value: round(oursOpen.achieved, 0),
      unit: 'req/s',
      ...atLeast(oursOpen.achieved, RATE * 0.98),
      ratio: round(oursOpen.achieved / bareOpen.achieved, 3),
      baseline: `bare Express ${bareOpen.achieved.toFixed(0)} req/s`,
    });
    rows.push({
      figure: `acknowledged but not stored (${engine})`,
      value: missing,
      unit: 'messages',
      target: '= 0',
      correctness: true,
      pass: missing === 0 && storedCount >= ackedCount,
      note: `acknowledged ${ackedCount}, stored ${storedCount}, FAILED ${storedT.failed + storedO.failed}`,
    });

    ctx.log(`${engine}: pipeline (${pipelineMessages} messages from 300 customers)`);
    const pipe = await burst(p, db, channel, `p${run}`, pipelineMessages, 300);
    rows.push({
      figure: `pipeline stored+assigned+ticketed (${engine})`,
      value: round(pipe.rate, 0),
      unit: 'msg/s',
      ...(embedded ? {} : atLeast(pipe.rate, 300)),
      note: describeBurst(pipe),
    });
  } finally {
    await db.end();
    await stop(baseline.child);
    replies.server.close();
  }
  return rows;
}

export async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  await forEachEngine(ctx, {}, async (p) => {
    rows.push(...(await round1(ctx, p)));
  });
  return rows;
}
