import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import Papa from 'papaparse';
import { type DomainEvent, EventBus } from 'src/core/events/event-bus';
import type { TestApp } from '../../utils/test-app';
import { createTestApp } from '../../utils/test-app';
import { type Session, addMember, setPlan, signupWorkspace } from '../../utils/sessions';
import { sql } from '../inbox/inbox-helpers';
import { type Seeded, WINDOW, seedWorkspace } from './analytics-seed';

type Row = Record<string, string | number | boolean | null>;

const REPORT_KEYS = ['conversations', 'messages', 'tickets', 'agents', 'sla', 'csat', 'ai', 'catalog'];

/** A JSON cell as the CSV must show it: null empty, text starting with = + - @ prefixed with '. */
function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  if (typeof value === 'string') return /^[=+\-@]/.test(value) ? `'${value}` : value;
  return String(value);
}

describe('Reports, CSV export, CSAT', () => {
  let t: TestApp;
  let s: Seeded;
  const events: DomainEvent[] = [];

  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT: '100000' } });
    t.app.get(EventBus).subscribe('csat.received', (e) => {
      events.push(e);
    });
    s = await seedWorkspace(t);
    await setPlan(t, s.admin.workspaceId, 'ENTERPRISE');
    await t.http.post('/csat').set(s.admin.headers).send({ conversationId: s.conv.C1, score: 4 }).expect(201);
    await t.http
      .post('/csat')
      .set(s.admin.headers)
      .send({ conversationId: s.conv.C1, score: 5, comment: '=1+1' })
      .expect(201);
    await t.http.post('/csat').set(s.admin.headers).send({ conversationId: s.conv.C6, score: 2 }).expect(201);
    await sql(t, `UPDATE csat_responses SET created_at = '2026-03-30T10:00:00Z' WHERE conversation_id = $1`, [
      s.conv.C6,
    ]);
    await sql(t, `UPDATE csat_responses SET created_at = '2026-03-30T11:00:00Z' WHERE conversation_id = $1`, [
      s.conv.C1,
    ]);
  }, 180_000);
  afterAll(async () => {
    await t.close();
  });

  /** Every row of a report, page by page (limit 3 to cross page boundaries). */
  async function allRows(session: Session, key: string, query: Record<string, string> = WINDOW): Promise<Row[]> {
    const rows: Row[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { key: string; generatedAt: string; rows: Row[]; nextCursor: string | null } } = await t.http
        .get(`/reports/${key}`)
        .query({ ...query, limit: '3', ...(cursor ? { cursor } : {}) })
        .set(session.headers)
        .expect(200);
      expect(res.body.key).toBe(key);
      expect(typeof res.body.generatedAt).toBe('string');
      rows.push(...res.body.rows);
      cursor = res.body.nextCursor;
    } while (cursor);
    return rows;
  }

  it('GET /reports lists the definitions', async () => {
    const res = await t.http.get('/reports').set(s.admin.headers).expect(200);
    const keys = res.body.data.map((d: { key: string }) => d.key);
    for (const key of ['conversations', 'tickets', 'agents', 'sla', 'csat', 'ai', 'catalog'])
      expect(keys).toContain(key);
    for (const d of res.body.data) {
      expect(d).toEqual({
        key: expect.any(String),
        name: expect.any(String),
        description: expect.any(String),
        columns: expect.any(Array),
      });
      expect(d.columns[0]).toEqual({ key: expect.any(String), label: expect.any(String), type: expect.any(String) });
    }
  });

  it('conversations report: the window’s conversations newest first, keyset-paged, figures per row', async () => {
    const rows = await allRows(s.admin, 'conversations');
    expect(rows.map((r) => r.id)).toEqual([s.conv.C3, s.conv.C6, s.conv.C4, s.conv.C2, s.conv.C5, s.conv.C1]);
    const c1 = rows.find((r) => r.id === s.conv.C1)!;
    expect(c1).toMatchObject({
      createdAt: '2026-03-28T10:00:00.000Z',
      channelType: 'CUSTOM',
      status: 'RESOLVED',
      assignee: 'Owner One',
      contact: '=HYPERLINK("x")',
      subject: '-1 refund please',
      firstResponseSeconds: 60,
      resolutionSeconds: 3600,
      resolvedAt: '2026-03-28T11:00:00.000Z',
    });
    const c3 = rows.find((r) => r.id === s.conv.C3)!;
    expect(c3).toMatchObject({ firstResponseAt: null, firstResponseSeconds: null, resolvedAt: null });
    const chB = await allRows(s.admin, 'conversations', { ...WINDOW, channelId: s.chB });
    expect(chB.map((r) => r.id)).toEqual([s.conv.C3, s.conv.C6, s.conv.C4]);
    const q2 = await allRows(s.admin, 'conversations', { ...WINDOW, queueId: s.q2 });
    expect(q2.map((r) => r.id)).toEqual([s.conv.C6, s.conv.C2]);
  });

  it('sla, tickets, ai, agents and csat reports hold the hand-counted rows', async () => {
    const sla = await allRows(s.admin, 'sla');
    expect(sla.map((r) => [r.conversationId, r.firstResponseStatus, r.resolutionStatus])).toEqual([
      [s.conv.C3, 'PENDING', 'PENDING'],
      [s.conv.C2, 'BREACHED', 'BREACHED'],
      [s.conv.C1, 'MET', 'BREACHED'],
    ]);
    const tickets = await allRows(s.admin, 'tickets');
    expect(tickets.map((r) => [r.key, r.status, r.resolutionSeconds])).toEqual([
      ['TCK-1002', 'OPEN', null],
      ['TCK-1003', 'CLOSED', 86400],
      ['TCK-1001', 'RESOLVED', 7200],
    ]);
    const ai = await allRows(s.admin, 'ai');
    expect(ai.map((r) => [r.conversationId, r.aiReplies, r.agentMessages, r.handedOffAt])).toEqual([
      [s.conv.C6, 1, 1, '2026-03-30T08:02:00.000Z'],
      [s.conv.C5, 1, 0, null],
    ]);
    const agents = await allRows(s.admin, 'agents');
    const owner = agents.find((r) => r.userId === s.admin.userId)!;
    expect(owner).toMatchObject({ onlineSeconds: 37800, assigned: 2, resolved: 2, averageFirstResponseSeconds: 330 });
    // One row per conversation: C1's second rating replaced the first.
    const csat = await allRows(s.admin, 'csat');
    expect(csat.map((r) => [r.conversationId, r.score, r.comment])).toEqual([
      [s.conv.C1, 5, '=1+1'],
      [s.conv.C6, 2, null],
    ]);
  });

  it("every report’s CSV export equals its JSON rows, row for row (formula cells prefixed with ')", async () => {
    for (const key of REPORT_KEYS) {
      const json = await allRows(s.admin, key);
      const res = await t.http
        .get(`/reports/${key}/export`)
        .query({ ...WINDOW, format: 'csv' })
        .set(s.admin.headers)
        .expect(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toMatch(
        new RegExp(`^attachment; filename="${key}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`),
      );
      const parsed = Papa.parse<string[]>(res.text.replace(/\r?\n$/, ''), { header: false });
      const [header, ...rows] = parsed.data;
      const columns = Object.keys(json[0] ?? {});
      if (json.length) expect(header).toEqual(columns);
      expect(rows).toEqual(json.map((r) => columns.map((c) => csvCell(r[c]!))));
    }
    const conversations = await t.http
      .get('/reports/conversations/export')
      .query(WINDOW)
      .set(s.admin.headers)
      .expect(200);
    expect(conversations.text).toContain(`'-1 refund please`);
    expect(conversations.text).toContain(`'@admin help`);
    expect(conversations.text).toContain(`"'=HYPERLINK(""x"")"`);
  });

  it('unknown report → 404; bad parameters → 400', async () => {
    expect((await t.http.get('/reports/nope').set(s.admin.headers).expect(404)).body.code).toBe('not_found');
    await t.http.get('/reports/nope/export').set(s.admin.headers).expect(404);
    const bad = async (path: string, query: Record<string, string>) => {
      const res = await t.http.get(path).query(query).set(s.admin.headers).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(Array.isArray(res.body.details)).toBe(true);
    };
    await bad('/reports/conversations', { from: WINDOW.to, to: WINDOW.from });
    await bad('/reports/conversations', { from: 'soon' });
    await bad('/reports/conversations', { limit: '0' });
    await bad('/reports/conversations', { limit: '101' });
    await bad('/reports/conversations', { cursor: 'garbage' });
    await bad('/reports/conversations/export', { format: 'xlsx' });
    await bad('/reports/conversations/export', { channelId: 'x' });
  });

  it('permissions: reports.view and reports.export are separate; AGENT has neither by default', async () => {
    await t.http.get('/reports').set(s.agent2.headers).expect(403);
    await t.http.get('/reports/conversations/export').set(s.agent2.headers).expect(403);
    const supervisor = await addMember(t, s.admin, 'SUPERVISOR');
    await t.http.get('/reports/csat/export').set(supervisor.headers).expect(200);
    await t.http
      .put('/permissions')
      .set(s.admin.headers)
      .send({ matrix: { AGENT: ['conversations.reply', 'reports.view'] } })
      .expect(200);
    await t.http.get('/reports/conversations').set(s.agent2.headers).expect(200);
    await t.http.get('/reports/conversations/export').set(s.agent2.headers).expect(403);
    await t.http.post('/permissions/reset').set(s.admin.headers).expect(200);
    await t.http.get('/reports/conversations').expect(401);
  });

  it('another workspace sees none of these rows and cannot rate these conversations', async () => {
    const other = await signupWorkspace(t, 'Other');
    for (const key of REPORT_KEYS.filter((k) => k !== 'agents')) {
      expect(await allRows(other, key)).toEqual([]);
    }
    const agents = await allRows(other, 'agents');
    expect(agents.map((r) => r.userId)).toEqual([other.userId]);
    const csv = await t.http.get('/reports/conversations/export').query(WINDOW).set(other.headers).expect(200);
    // Only the header line.
    expect(csv.text.trim().split('\n')).toEqual([expect.stringMatching(/^id,createdAt,/)]);
    const res = await t.http.post('/csat').set(other.headers).send({ conversationId: s.conv.C2, score: 5 }).expect(404);
    expect(res.body.code).toBe('not_found');
  });

  it('CSAT: validation, 404, one per conversation, csat.received, shown in the summary and the csat report', async () => {
    for (const body of [
      { conversationId: s.conv.C2, score: 0 },
      { conversationId: s.conv.C2, score: 6 },
      { conversationId: s.conv.C2, score: 3.5 },
      { conversationId: 'x', score: 3 },
      { conversationId: s.conv.C2, score: 3, extra: true },
    ]) {
      const res = await t.http.post('/csat').set(s.admin.headers).send(body).expect(400);
      expect(res.body.code).toBe('validation_failed');
    }
    await t.http
      .post('/csat')
      .set(s.admin.headers)
      .send({ conversationId: '00000000-0000-4000-8000-000000000000', score: 3 })
      .expect(404);
    expect(events.filter((e) => e.workspaceId === s.admin.workspaceId)).toHaveLength(3);

    const before = Date.now();
    const res = await t.http
      .post('/csat')
      .set(s.admin.headers)
      .send({ conversationId: s.conv.C2, score: 3, comment: 'ok' })
      .expect(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      conversationId: s.conv.C2,
      score: 3,
      comment: 'ok',
      createdAt: expect.any(String),
    });
    const event = events[events.length - 1]!;
    expect(event.name).toBe('csat.received');
    expect(event.workspaceId).toBe(s.admin.workspaceId);
    expect(event.data).toMatchObject({ conversationId: s.conv.C2, score: 3, comment: 'ok' });

    const window = { from: new Date(before - 60_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString() };
    const summary = await t.http.get('/analytics/summary').query(window).set(s.admin.headers).expect(200);
    expect(summary.body.csat).toEqual({ average: 3, responses: 1 });
    const report = await allRows(s.admin, 'csat', window);
    expect(report.map((r) => [r.conversationId, r.score])).toEqual([[s.conv.C2, 3]]);
  });
});
