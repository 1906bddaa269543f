/**
 * Developer webhooks in the inbound pipeline (issue 11, issue 16 item 3, DESIGN §10, §13).
 *
 * Per engine (embedded with inline jobs; PostgreSQL + Redis with an `api` and a `worker` process):
 * the pipeline figure (messages stored, in an assigned conversation and ticketed, per second; see
 * bench/lib/pipeline.ts) without webhooks, then with three active webhooks subscribed to
 * `conversation.created`, `message.received`, `contact.created` and `ticket.created` whose receiver
 * answers 200 at once — goal ≥ 90 % of the figure without — and the deliveries per second the
 * receiver saw (every message makes at least one `message.received` per webhook). Each round sends
 * its messages from new customers (ten messages each).
 */
import type { Client } from 'pg';
import { type BurstResult, burst, describeBurst, forEachEngine, setupInbox, sink } from './lib/pipeline';
import { call, serviceDb } from './lib/service';
import { type BenchContext, type BenchRow, atLeast, round } from './lib/types';

export const name = 'webhooks';

const EVENTS = ['conversation.created', 'message.received', 'contact.created', 'ticket.created'];

export async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const messages = ctx.short ? 200 : 2000;
  const senders = messages / 10;
  await forEachEngine(ctx, {}, async (p) => {
    const receiver = await sink();
    const db: Client = await serviceDb(p.service);
    try {
      const channel = await setupInbox(p.service, `${receiver.url}/replies`);
      let n = 0;
      const next = (label: string): Promise<BurstResult> => {
        ctx.log(`webhooks (${p.engine}): ${label}, ${messages} messages from ${senders} new customers`);
        return burst(p, db, channel, `w${n++}x${Date.now().toString(36)}`, messages, senders);
      };
      await next('warm-up');
      const none = await next('no webhooks');
      for (let i = 1; i <= 3; i++) {
        await call(p.service.base, 'POST', '/developer/webhooks', channel.headers, {
          url: `${receiver.url}/hook-${i}`,
          events: EVENTS,
        });
      }
      const started = Date.now();
      const hooked = await next('3 active webhooks');
      // Deliveries finish after the pipeline: wait until the receiver's count stops moving.
      const expected = 3 * messages;
      let last = -1;
      let lastAt = Date.now();
      const hooks = () => receiver.count('hook-1') + receiver.count('hook-2') + receiver.count('hook-3');
      const deadline = Date.now() + (ctx.short ? 60_000 : 300_000);
      while (Date.now() < deadline) {
        const count = hooks();
        if (count !== last) {
          last = count;
          lastAt = Date.now();
        } else if (Date.now() - lastAt > 3_000) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const deliveries = hooks();
      const ratio = none.rate > 0 ? hooked.rate / none.rate : 0;
      rows.push(
        {
          figure: `pipeline with 3 active webhooks ÷ without (${p.engine})`,
          value: round(ratio * 100, 0),
          unit: '%',
          ...atLeast(round(ratio * 100, 0), 90),
          ratio: round(ratio, 3),
          baseline: `pipeline without webhooks ${none.rate.toFixed(0)} msg/s`,
          note: `without: ${none.rate.toFixed(0)} msg/s, ${describeBurst(none)} | with: ${hooked.rate.toFixed(0)} msg/s, ${describeBurst(hooked)}`,
        },
        {
          figure: `webhook deliveries per second (${p.engine})`,
          value: round((deliveries * 1000) / Math.max(1, lastAt - started), 0),
          unit: 'deliveries/s',
          note: `${deliveries} deliveries received for ${messages} messages × 3 webhooks (at least ${expected} expected)`,
        },
        {
          figure: `webhook deliveries missing (${p.engine})`,
          value: Math.max(0, expected - deliveries),
          unit: 'deliveries',
          target: '= 0',
          correctness: true,
          pass: deliveries >= expected && hooked.acknowledged === hooked.stored,
          note: `each of the ${messages} messages makes a message.received per webhook; acknowledged ${hooked.acknowledged}, stored ${hooked.stored}`,
        },
      );
    } finally {
      await db.end();
      receiver.server.close();
    }
  });
  return rows;
}
