import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestApp } from '../../utils/test-app';
import { createTestApp } from '../../utils/test-app';
import { addMember, signupWorkspace } from '../../utils/sessions';
import { sql } from '../inbox/inbox-helpers';
import { type Seeded, WINDOW, seedWorkspace } from './analytics-seed';

/**
 * Every expected number below is counted by hand from analytics-seed.ts (workspace timezone
 * Europe/Berlin; the window is local 2026-03-28 00:00 → 2026-03-31 00:00, across the DST change).
 */
describe('Analytics figures', () => {
  let t: TestApp;
  let s: Seeded;
  const q = (extra: Record<string, string> = {}) => ({ ...WINDOW, ...extra });

  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT: '100000' } });
    s = await seedWorkspace(t);
    // CSAT through the API (C1 rated twice: the later rating replaces the first), then moved into the window.
    await t.http.post('/csat').set(s.admin.headers).send({ conversationId: s.conv.C1, score: 4 }).expect(201);
    await t.http
      .post('/csat')
      .set(s.admin.headers)
      .send({ conversationId: s.conv.C1, score: 5, comment: 'great' })
      .expect(201);
    await t.http.post('/csat').set(s.admin.headers).send({ conversationId: s.conv.C6, score: 2 }).expect(201);
    await sql(t, `UPDATE csat_responses SET created_at = '2026-03-30T10:00:00Z' WHERE workspace_id = $1`, [
      s.admin.workspaceId,
    ]);
    await t.http.post('/analytics/presence').set(s.agent2.headers).send({ status: 'ONLINE' }).expect(200);
  }, 180_000);
  afterAll(async () => {
    await t.close();
  });

  it('summary: conversations, messages, first response, resolution, CSAT, SLA, tickets', async () => {
    const res = await t.http.get('/analytics/summary').query(q()).set(s.admin.headers).expect(200);
    expect(res.body).toEqual({
      from: WINDOW.from,
      to: WINDOW.to,
      conversations: { total: 7, new: 6, open: 3, resolved: 4 },
      messages: { inbound: 7, outbound: 6 },
      firstResponse: { averageSeconds: 180, medianSeconds: 60 },
      resolution: { averageSeconds: 4050 },
      csat: { average: 3.5, responses: 2 },
      sla: { complianceRate: 0.25 },
      tickets: { created: 3, resolved: 2, open: 2 },
    });
  });

  it('summary filtered by channel and by queue', async () => {
    const byChannel = await t.http
      .get('/analytics/summary')
      .query(q({ channelId: s.chB }))
      .set(s.admin.headers)
      .expect(200);
    expect(byChannel.body.conversations).toEqual({ total: 3, new: 3, open: 1, resolved: 2 });
    expect(byChannel.body.messages).toEqual({ inbound: 3, outbound: 3 });
    expect(byChannel.body.firstResponse).toEqual({ averageSeconds: 330, medianSeconds: 330 });
    expect(byChannel.body.csat).toEqual({ average: 2, responses: 1 });
    expect(byChannel.body.sla).toEqual({ complianceRate: null });
    expect(byChannel.body.tickets).toEqual({ created: 1, resolved: 0, open: 1 });

    const byQueue = await t.http
      .get('/analytics/summary')
      .query(q({ queueId: s.q2 }))
      .set(s.admin.headers)
      .expect(200);
    expect(byQueue.body.conversations).toEqual({ total: 2, new: 2, open: 1, resolved: 1 });
    expect(byQueue.body.messages).toEqual({ inbound: 2, outbound: 3 });
    expect(byQueue.body.firstResponse).toEqual({ averageSeconds: 90, medianSeconds: 90 });
    expect(byQueue.body.sla).toEqual({ complianceRate: 0 });
    expect(byQueue.body.tickets).toEqual({ created: 1, resolved: 1, open: 0 });
  });

  it('inbox: DAY buckets in Europe/Berlin across the DST change (23-hour day), by channel type', async () => {
    const res = await t.http
      .get('/analytics/inbox')
      .query(q({ interval: 'day' }))
      .set(s.admin.headers)
      .expect(200);
    expect(res.body.interval).toBe('DAY');
    expect(res.body.series).toEqual([
      { bucket: '2026-03-27T23:00:00.000Z', conversations: 1, inbound: 2, outbound: 1, resolved: 1 },
      { bucket: '2026-03-28T23:00:00.000Z', conversations: 2, inbound: 2, outbound: 2, resolved: 1 },
      { bucket: '2026-03-29T22:00:00.000Z', conversations: 3, inbound: 3, outbound: 3, resolved: 2 },
    ]);
    expect(res.body.byChannel).toEqual([
      { channelType: 'CUSTOM', conversations: 3, inbound: 4 },
      { channelType: 'TELEGRAM', conversations: 3, inbound: 3 },
    ]);
  });

  it('inbox: HOUR buckets are real hours through the skipped local hour; WEEK buckets start on local Mondays', async () => {
    const hours = await t.http
      .get('/analytics/inbox')
      .query({ from: '2026-03-29T00:00:00.000Z', to: '2026-03-29T03:00:00.000Z', interval: 'HOUR' })
      .set(s.admin.headers)
      .expect(200);
    expect(hours.body.series).toEqual([
      { bucket: '2026-03-29T00:00:00.000Z', conversations: 0, inbound: 0, outbound: 0, resolved: 1 },
      { bucket: '2026-03-29T01:00:00.000Z', conversations: 1, inbound: 1, outbound: 1, resolved: 0 },
      { bucket: '2026-03-29T02:00:00.000Z', conversations: 0, inbound: 0, outbound: 0, resolved: 0 },
    ]);
    const weeks = await t.http
      .get('/analytics/inbox')
      .query(q({ interval: 'WEEK' }))
      .set(s.admin.headers)
      .expect(200);
    expect(
      weeks.body.series.map((b: { bucket: string; conversations: number }) => [b.bucket, b.conversations]),
    ).toEqual([
      ['2026-03-22T23:00:00.000Z', 3],
      ['2026-03-29T22:00:00.000Z', 3],
    ]);
  });

  it('a 25-hour day (autumn change) with no data: every bucket present with zeros', async () => {
    const res = await t.http
      .get('/analytics/tickets')
      .query({ from: '2026-10-23T22:00:00.000Z', to: '2026-10-26T23:00:00.000Z', interval: 'DAY' })
      .set(s.admin.headers)
      .expect(200);
    expect(res.body.series).toEqual([
      { bucket: '2026-10-23T22:00:00.000Z', created: 0, resolved: 0 },
      { bucket: '2026-10-24T22:00:00.000Z', created: 0, resolved: 0 },
      { bucket: '2026-10-25T23:00:00.000Z', created: 0, resolved: 0 },
    ]);
  });

  it('tickets: series, by status, by priority; filtered by queue', async () => {
    const res = await t.http.get('/analytics/tickets').query(q()).set(s.admin.headers).expect(200);
    expect(res.body.series).toEqual([
      { bucket: '2026-03-27T23:00:00.000Z', created: 1, resolved: 1 },
      { bucket: '2026-03-28T23:00:00.000Z', created: 1, resolved: 0 },
      { bucket: '2026-03-29T22:00:00.000Z', created: 1, resolved: 1 },
    ]);
    expect(res.body.byStatus).toEqual({ OPEN: 1, IN_PROGRESS: 0, WAITING: 0, RESOLVED: 1, CLOSED: 1 });
    expect(res.body.byPriority).toEqual({ LOW: 1, MEDIUM: 1, HIGH: 1, URGENT: 0 });
    const q2 = await t.http
      .get('/analytics/tickets')
      .query(q({ queueId: s.q2 }))
      .set(s.admin.headers)
      .expect(200);
    expect(q2.body.byStatus).toEqual({ OPEN: 0, IN_PROGRESS: 0, WAITING: 0, RESOLVED: 0, CLOSED: 1 });
  });

  it('workforce: presence intervals give exact online seconds; per-agent conversation figures', async () => {
    const res = await t.http.get('/analytics/workforce').query(q()).set(s.admin.headers).expect(200);
    expect(res.body.agents).toEqual([
      {
        userId: s.agent2.userId,
        name: 'Agent Two',
        presence: 'ONLINE',
        onlineSeconds: 3600,
        assigned: 2,
        resolved: 1,
        averageFirstResponseSeconds: 90,
        // C2, and C3: coming ONLINE (beforeAll) made routing assign the waiting C3 of the default queue.
        openNow: 2,
      },
      {
        userId: s.admin.userId,
        name: 'Owner One',
        presence: 'OFFLINE',
        onlineSeconds: 1800 + 14400 + 21600,
        assigned: 2,
        resolved: 2,
        averageFirstResponseSeconds: 330,
        openNow: 1,
      },
    ]);
    const q2 = await t.http
      .get('/analytics/workforce')
      .query(q({ queueId: s.q2 }))
      .set(s.admin.headers)
      .expect(200);
    expect(q2.body.agents.map((a: { name: string }) => a.name)).toEqual(['Agent Two']);
  });

  it('ai: replies, handoffs, automated resolutions, series', async () => {
    const res = await t.http.get('/analytics/ai').query(q()).set(s.admin.headers).expect(200);
    expect(res.body).toMatchObject({
      replies: 2,
      handoffs: 1,
      conversationsWithAi: 2,
      resolvedWithoutHuman: 1,
      automatedResolutionRate: 0.5,
    });
    expect(res.body.series).toEqual([
      { bucket: '2026-03-27T23:00:00.000Z', replies: 0, handoffs: 0 },
      { bucket: '2026-03-28T23:00:00.000Z', replies: 1, handoffs: 0 },
      { bucket: '2026-03-29T22:00:00.000Z', replies: 1, handoffs: 1 },
    ]);
    const chA = await t.http
      .get('/analytics/ai')
      .query(q({ channelId: s.chA }))
      .set(s.admin.headers)
      .expect(200);
    expect(chA.body).toMatchObject({ replies: 1, handoffs: 0, resolvedWithoutHuman: 1, automatedResolutionRate: 1 });
  });

  it('null where there is no data (a fresh workspace)', async () => {
    const fresh = await signupWorkspace(t, 'Empty');
    const summary = await t.http.get('/analytics/summary').query(q()).set(fresh.headers).expect(200);
    expect(summary.body).toMatchObject({
      conversations: { total: 0, new: 0, open: 0, resolved: 0 },
      messages: { inbound: 0, outbound: 0 },
      firstResponse: { averageSeconds: null, medianSeconds: null },
      resolution: { averageSeconds: null },
      csat: { average: null, responses: 0 },
      sla: { complianceRate: null },
      tickets: { created: 0, resolved: 0, open: 0 },
    });
    const ai = await t.http.get('/analytics/ai').query(q()).set(fresh.headers).expect(200);
    expect(ai.body.automatedResolutionRate).toBeNull();
    const wf = await t.http.get('/analytics/workforce').query(q()).set(fresh.headers).expect(200);
    expect(wf.body.agents).toEqual([
      expect.objectContaining({ onlineSeconds: 0, assigned: 0, averageFirstResponseSeconds: null, openNow: 0 }),
    ]);
    const inbox = await t.http.get('/analytics/inbox').query(q()).set(fresh.headers).expect(200);
    // A new workspace is on UTC: the same window spans four UTC days.
    expect(inbox.body.series.map((b: { bucket: string }) => b.bucket)).toEqual([
      '2026-03-27T00:00:00.000Z',
      '2026-03-28T00:00:00.000Z',
      '2026-03-29T00:00:00.000Z',
      '2026-03-30T00:00:00.000Z',
    ]);
    expect(inbox.body.byChannel).toEqual([]);
  });

  it('another workspace sees none of these figures', async () => {
    const other = await signupWorkspace(t, 'Other');
    const summary = await t.http.get('/analytics/summary').query(q()).set(other.headers).expect(200);
    expect(summary.body.conversations.new).toBe(0);
    // A channel id of the seeded workspace filters to nothing, it never reveals its data.
    const byForeignChannel = await t.http
      .get('/analytics/summary')
      .query(q({ channelId: s.chA }))
      .set(other.headers)
      .expect(200);
    expect(byForeignChannel.body.messages).toEqual({ inbound: 0, outbound: 0 });
  });

  it('bad parameters → 400 validation_failed with details', async () => {
    const bad = async (query: Record<string, string>, field: string) => {
      const res = await t.http.get('/analytics/summary').query(query).set(s.admin.headers).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    };
    await bad({ from: WINDOW.to, to: WINDOW.from }, 'from');
    await bad({ from: WINDOW.from, to: WINDOW.from }, 'from');
    await bad({ from: 'yesterday', to: WINDOW.to }, 'from');
    await bad({ from: WINDOW.from, to: '2026-13-01' }, 'to');
    await bad({ ...WINDOW, interval: 'MINUTE' }, 'interval');
    await bad({ ...WINDOW, channelId: 'not-a-uuid' }, 'channelId');
    // 100 days of hours = 2,400 buckets > 2,000.
    await bad({ from: '2026-01-01T00:00:00.000Z', to: '2026-04-11T00:00:00.000Z', interval: 'HOUR' }, 'interval');
    await t.http
      .get('/analytics/inbox')
      .query({ from: '2026-01-01T00:00:00.000Z', to: '2026-03-23T08:00:00.000Z', interval: 'HOUR' })
      .set(s.admin.headers)
      .expect(200);
  });

  it('permissions: AGENT lacks analytics.view; SUPERVISOR has it; no credentials → 401', async () => {
    const forbidden = await t.http.get('/analytics/summary').query(q()).set(s.agent2.headers).expect(403);
    expect(forbidden.body.code).toBe('forbidden');
    await t.http.get('/analytics/meta').set(s.agent2.headers).expect(403);
    const supervisor = await addMember(t, s.admin, 'SUPERVISOR');
    await t.http.get('/analytics/workforce').query(q()).set(supervisor.headers).expect(200);
    await t.http.get('/analytics/summary').query(q()).expect(401);
  });

  it('meta lists sources and metrics that the endpoints really produce', async () => {
    const meta = await t.http.get('/analytics/meta').set(s.admin.headers).expect(200);
    const sources = meta.body.sources as { key: string; path: string; metrics: { key: string; shape: string }[] }[];
    expect(sources.map((x) => x.key)).toEqual(['summary', 'inbox', 'tickets', 'workforce', 'ai']);
    for (const source of sources) {
      const answer = (await t.http.get(source.path).query(q()).set(s.admin.headers).expect(200)).body;
      for (const metric of source.metrics) {
        const [head, tail] = metric.key.split('.') as [string, string | undefined];
        const value = answer[head];
        expect(value).toBeDefined();
        if (metric.shape === 'series' || (metric.shape === 'breakdown' && Array.isArray(value))) {
          expect(Array.isArray(value)).toBe(true);
          if (tail) expect(value[0]).toHaveProperty(tail);
        } else if (tail) {
          expect(value).toHaveProperty(tail);
        }
      }
    }
  });
});
