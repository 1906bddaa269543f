/**
 * Automations and AI agent in the inbound pipeline (issue 12, issue 16 item 3, DESIGN §13).
 *
 * Per engine (embedded with inline jobs; PostgreSQL + Redis with an `api` and a `worker` process):
 *   1. pipeline without automations: messages stored, in an assigned conversation and ticketed, per
 *      second (bench/lib/pipeline.ts), and its cost: SQL statements and Redis commands per message in
 *      the process that runs the pipeline;
 *   2. the same with 50 active RULE automations on `message.received` that match nothing — goal
 *      ≥ 80 % of (1). Rounds alternate (none, 50, none, 50 in full mode) so drift of the machine
 *      affects both alike; the best of each is compared;
 *   3. 50 rules plus an active built-in AI agent on the channel — goal ≥ 250 msg/s with Redis workers.
 *      Before this round the workspace gets a small catalogue (PRODUCTS items, through the API), and
 *      every message of the round asks about one of them ("how much is the Aurora Kettle?"), so the
 *      agent answers each message from the catalogue (an AI reply stored in the event's transaction
 *      and delivered to the channel) instead of handing off once per conversation and staying silent.
 *      The round counts the AI replies stored, the handoffs and the replies the channel received.
 * Every round sends its messages from new customers (ten messages each), so each round creates the
 * same share of contacts, conversations, assignments and tickets.
 */
import type { Client } from 'pg';
import {
  type BurstResult,
  type InboxChannel,
  type PipelineService,
  burst,
  describeBurst,
  forEachEngine,
  setupInbox,
  sink,
} from './lib/pipeline';
import { call, serviceDb } from './lib/service';
import { type BenchContext, type BenchRow, atLeast, round } from './lib/types';

export const name = 'automations';

const RULES = 50;

/** The agent round's catalogue: one item per brand × noun, each asked about by name. */
const BRANDS = ['Aurora', 'Nimbus', 'Orbit', 'Pulse', 'Zenith'];
const NOUNS = ['Kettle', 'Toaster', 'Blender', 'Speaker', 'Lamp', 'Backpack'];
const PRODUCTS = BRANDS.flatMap((brand) => NOUNS.map((noun) => `${brand} ${noun}`));

async function addCatalogue(p: PipelineService, channel: InboxChannel): Promise<void> {
  for (const [i, name] of PRODUCTS.entries()) {
    await call(p.service.base, 'POST', '/catalog', channel.headers, {
      name,
      price: 20 + i,
      currency: 'USD',
      sku: `BENCH-${i}`,
      stock: 5 + i,
      description: `${name}: a bench product.`,
    });
  }
}

/** Message i of the agent round: a question about one product (every product asked in turn). */
const question = (i: number): string => `how much is the ${PRODUCTS[i % PRODUCTS.length]!.toLowerCase()}?`;

/** What the AI agent did in a round: replies stored, conversations handed off, replies the channel got. */
async function aiOutcome(db: Client, tag: string): Promise<{ replies: number; handoffs: number }> {
  const { rows } = await db.query(
    `WITH conv AS (SELECT DISTINCT m.conversation_id AS id FROM messages m WHERE m.text LIKE 'bench ${tag}-%' AND m.direction = 'INBOUND')
     SELECT (SELECT count(*)::int FROM messages m JOIN conv ON conv.id = m.conversation_id WHERE m.sender_type = 'AI') AS replies,
            (SELECT count(*)::int FROM ai_conversation_states s JOIN conv ON conv.id = s.conversation_id WHERE s.status = 'HANDED_OFF') AS handoffs`,
  );
  return rows[0] as { replies: number; handoffs: number };
}

/** Rule i: active on message.received, matching none of the bench's messages. */
function rule(i: number, active: boolean) {
  return {
    name: `Bench rule ${i}`,
    kind: 'RULE',
    active,
    trigger: 'message.received',
    order: i,
    conditions: {
      all: [
        { field: 'message.text', operator: 'contains', value: `refund-${i}` },
        { field: 'conversation.priority', operator: 'in', value: ['HIGH', 'URGENT'] },
      ],
      any: [],
    },
    actions: [
      { type: 'ADD_TAGS', params: { tags: [`bench-${i}`] } },
      { type: 'SET_PRIORITY', params: { priority: 'HIGH' } },
    ],
  };
}

async function addRules(p: PipelineService, channel: InboxChannel): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < RULES; i++) {
    const created = await call(p.service.base, 'POST', '/automations', channel.headers, rule(i, true));
    ids.push(String(created.id));
  }
  return ids;
}

async function setActive(p: PipelineService, channel: InboxChannel, ids: string[], active: boolean): Promise<void> {
  for (const [i, id] of ids.entries())
    await call(p.service.base, 'PUT', `/automations/${id}`, channel.headers, rule(i, active));
}

async function rounds(ctx: BenchContext, p: PipelineService): Promise<BenchRow[]> {
  const messages = ctx.short ? 200 : 2000;
  const senders = messages / 10;
  const replies = await sink();
  const db: Client = await serviceDb(p.service);
  try {
    const channel = await setupInbox(p.service, `${replies.url}/replies`);
    let n = 0;
    let lastTag = '';
    const next = (label: string, text?: (i: number) => string) => {
      ctx.log(`automations (${p.engine}): ${label}, ${messages} messages from ${senders} new customers`);
      lastTag = `a${n++}x${Date.now().toString(36)}`;
      return burst(p, db, channel, lastTag, messages, senders, text).then((b) => {
        if (process.env.BENCH_VERBOSE)
          ctx.log(
            `${label}: ${describeBurst(b)}\n${b.topStatements.map(([k, v]) => `  ${(v / messages).toFixed(2)}  ${k}`).join('\n')}`,
          );
        return b;
      });
    };
    await next('warm-up');
    const none: BurstResult[] = [];
    const fifty: BurstResult[] = [];
    none.push(await next('no automations'));
    const ids = await addRules(p, channel);
    fifty.push(await next(`${RULES} non-matching rules`));
    if (!ctx.short) {
      await setActive(p, channel, ids, false);
      none.push(await next('no automations (again)'));
      await setActive(p, channel, ids, true);
      fifty.push(await next(`${RULES} non-matching rules (again)`));
    }
    await addCatalogue(p, channel);
    const agent = await call(p.service.base, 'POST', '/ai-agents', channel.headers, {
      name: 'Bench agent',
      provider: 'BUILTIN',
      channelIds: [channel.id],
    });
    const delivered = replies.count('replies');
    const withAgent = await next(`${RULES} rules + an active AI agent`, question);
    const ai = await aiOutcome(db, lastTag);
    const deliveredToChannel = replies.count('replies') - delivered;
    ctx.log(
      `AI agent round: ${ai.replies} AI replies stored, ${ai.handoffs} conversations handed off, ` +
        `${deliveredToChannel} replies received by the channel (all rounds' outbound included)`,
    );
    const runs = await call(p.service.base, 'GET', `/automations/runs?automationId=${ids[0]}&limit=1`, channel.headers);
    await call(p.service.base, 'DELETE', `/ai-agents/${String(agent.id)}`, channel.headers).catch(() => undefined);

    const best = (list: BurstResult[]) => list.reduce((a, b) => (b.rate > a.rate ? b : a));
    const bestNone = best(none);
    const bestFifty = best(fifty);
    const ratio = bestNone.rate > 0 ? bestFifty.rate / bestNone.rate : 0;
    const redis = p.engine !== 'embedded';
    const lost = [...none, ...fifty, withAgent].reduce((sum, b) => sum + (b.acknowledged - b.stored), 0);
    return [
      {
        figure: `pipeline, no automations (${p.engine})`,
        value: round(bestNone.rate, 0),
        unit: 'msg/s',
        ...(redis ? atLeast(bestNone.rate, 300) : {}),
        note: `rounds ${none.map((b) => b.rate.toFixed(0)).join(', ')} msg/s; best: ${describeBurst(bestNone)}`,
      },
      {
        figure: `pipeline with ${RULES} non-matching rules ÷ without (${p.engine})`,
        value: round(ratio * 100, 0),
        unit: '%',
        ...atLeast(round(ratio * 100, 0), 80),
        ratio: round(ratio, 3),
        baseline: `pipeline without automations ${bestNone.rate.toFixed(0)} msg/s`,
        note: `rounds ${fifty.map((b) => b.rate.toFixed(0)).join(', ')} msg/s; best: ${describeBurst(bestFifty)}; runs logged: ${(runs.data as unknown[]).length > 0 ? 'yes' : 'NO'}`,
      },
      {
        figure: `pipeline with ${RULES} rules + an AI agent (${p.engine})`,
        value: round(withAgent.rate, 0),
        unit: 'msg/s',
        ...(redis ? atLeast(withAgent.rate, 250) : {}),
        ratio: round(bestNone.rate > 0 ? withAgent.rate / bestNone.rate : 0, 3),
        baseline: `pipeline without automations ${bestNone.rate.toFixed(0)} msg/s`,
        note: `${describeBurst(withAgent)}; AI replies stored ${ai.replies}, handoffs ${ai.handoffs}, replies received by the channel during the round ${deliveredToChannel}`,
      },
      {
        figure: `messages answered by the AI agent, agent round (${p.engine})`,
        value: ai.replies,
        unit: 'replies',
        target: `= ${messages}`,
        correctness: true,
        pass: ai.replies === messages && ai.handoffs === 0,
      },
      ...(bestNone.statementsPerMessage === null
        ? []
        : [
            {
              figure: `SQL statements per message, pipeline process (${p.engine})`,
              value: round(bestNone.statementsPerMessage, 1),
              unit: 'statements',
              note:
                `with ${RULES} rules ${round(bestFifty.statementsPerMessage ?? 0, 1)}, with rules + AI agent ` +
                `${round(withAgent.statementsPerMessage ?? 0, 1)}; Redis commands per message ` +
                `${round(bestNone.redisPerMessage ?? 0, 1)} / ${round(bestFifty.redisPerMessage ?? 0, 1)} / ${round(withAgent.redisPerMessage ?? 0, 1)}`,
            },
            {
              figure: `CPU ms per message, pipeline process (${p.engine})`,
              value: round(bestNone.cpuMsPerMessage ?? 0, 2),
              unit: 'ms',
              note: `with ${RULES} rules ${round(bestFifty.cpuMsPerMessage ?? 0, 2)}, with rules + AI agent ${round(withAgent.cpuMsPerMessage ?? 0, 2)}`,
            },
          ]),
      {
        figure: `acknowledged but not stored, automations rounds (${p.engine})`,
        value: lost,
        unit: 'messages',
        target: '= 0',
        correctness: true,
        pass: lost <= 0,
      },
    ];
  } finally {
    await db.end();
    replies.server.close();
  }
}

export async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  await forEachEngine(ctx, { countStatements: true }, async (p) => {
    rows.push(...(await rounds(ctx, p)));
  });
  return rows;
}
