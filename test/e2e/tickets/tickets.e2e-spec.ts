import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { type DomainEvent, EventBus } from 'src/core/events/event-bus';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, addMember, apiToken, signupWorkspace } from '../../utils/sessions';

type Ticket = Record<string, unknown> & { id: string; key: string };

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('tickets: CRUD, keys, transitions, comments, filters, paging, board, stats, settings', () => {
  let t: TestApp;
  const events: DomainEvent[] = [];
  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT: '10000' } });
    t.app.get(EventBus).subscribe('*', (e) => {
      events.push(e);
    });
  });
  afterAll(async () => {
    await t.close();
  });

  function sql<T = Record<string, unknown>>(query: string, params: unknown[] = []): Promise<T[]> {
    return t.app.get(DataSource).query(query, params);
  }

  async function create(s: { headers: Record<string, string> }, body: Record<string, unknown>): Promise<Ticket> {
    const res = await t.http.post('/tickets').set(s.headers).send(body).expect(201);
    return res.body;
  }

  async function list(s: Session, query: string): Promise<Ticket[]> {
    const res = await t.http.get(`/tickets?limit=100&${query}`).set(s.headers).expect(200);
    return res.body.data;
  }

  const keys = (tickets: Ticket[]) => tickets.map((x) => x.key).sort();

  async function defaultQueueId(s: Session): Promise<string> {
    const res = await t.http.get('/queues').set(s.headers).expect(200);
    return res.body.data.find((q: { isDefault: boolean }) => q.isDefault).id;
  }

  it('creates, reads, updates and deletes; keys come from the sequence with the prefix of the moment', async () => {
    const admin = await signupWorkspace(t);
    const ticket = await create(admin, {
      subject: '  Printer on fire ',
      description: 'Third floor',
      priority: 'high',
      tags: ['VIP', ' vip', 'Hardware'],
    });
    expect(ticket).toEqual({
      id: expect.any(String),
      key: 'TCK-1',
      subject: 'Printer on fire',
      description: 'Third floor',
      status: 'OPEN',
      priority: 'HIGH',
      assigneeId: null,
      queueId: null,
      contactId: null,
      conversationId: null,
      tags: ['vip', 'hardware'],
      dueAt: null,
      resolvedAt: null,
      source: 'MANUAL',
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(events).toContainEqual(
      expect.objectContaining({ name: 'ticket.created', workspaceId: admin.workspaceId, data: { ticket } }),
    );
    const second = await create(admin, { subject: 'Second' });
    expect(second).toMatchObject({ key: 'TCK-2', priority: 'MEDIUM', description: null, tags: [] });

    const got = await t.http.get(`/tickets/${ticket.id}`).set(admin.headers).expect(200);
    expect(got.body).toEqual({ ...ticket, comments: [] });

    const resolved = await t.http
      .put(`/tickets/${ticket.id}`)
      .set(admin.headers)
      .send({ status: 'resolved', subject: 'Printer fixed', description: null })
      .expect(200);
    expect(resolved.body).toMatchObject({
      status: 'RESOLVED',
      subject: 'Printer fixed',
      description: null,
      resolvedAt: expect.stringMatching(ISO),
    });
    const updated = events.find((e) => e.name === 'ticket.updated' && (e.data.ticket as Ticket).id === ticket.id);
    expect(updated?.data.changes).toEqual(expect.arrayContaining(['status', 'subject', 'description', 'resolvedAt']));
    const reopened = await t.http
      .put(`/tickets/${ticket.id}`)
      .set(admin.headers)
      .send({ status: 'IN_PROGRESS' })
      .expect(200);
    expect(reopened.body).toMatchObject({ status: 'IN_PROGRESS', resolvedAt: null });
    const noChange = await t.http.put(`/tickets/${ticket.id}`).set(admin.headers).send({}).expect(200);
    expect(noChange.body).toEqual(reopened.body);

    const settings = await t.http.put('/tickets/settings').set(admin.headers).send({ keyPrefix: 'help' }).expect(200);
    expect(settings.body).toEqual({
      autoCreateFromConversation: true,
      keyPrefix: 'HELP',
      defaultPriority: 'MEDIUM',
      resolveWithConversation: false,
    });
    const third = await create(admin, { subject: 'Third' });
    expect(third.key).toBe('HELP-3');
    expect((await t.http.get(`/tickets/${ticket.id}`).set(admin.headers).expect(200)).body.key).toBe('TCK-1');

    const token = await apiToken(t, admin);
    const viaApi = await create(token, { subject: 'From the API', status: 'closed' });
    expect(viaApi).toMatchObject({ key: 'HELP-4', source: 'API', status: 'CLOSED', resolvedAt: viaApi.createdAt });

    await t.http.delete(`/tickets/${second.id}`).set(admin.headers).expect(204);
    await t.http.get(`/tickets/${second.id}`).set(admin.headers).expect(404);
    await t.http.delete(`/tickets/${second.id}`).set(admin.headers).expect(404);
    // A deleted ticket's number is never handed out again.
    expect((await create(admin, { subject: 'Fifth' })).key).toBe('HELP-5');
  });

  it('never repeats a key under 20 concurrent creations', async () => {
    const admin = await signupWorkspace(t);
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.http
          .post('/tickets')
          .set(admin.headers)
          .send({ subject: `Concurrent ${i}` }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array(20).fill(201));
    const numbers = created.map((r) => Number(String(r.body.key).replace('TCK-', ''))).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('numbers each workspace on its own sequence, made with the workspace and dropped with it', async () => {
    const [one, two] = [await signupWorkspace(t), await signupWorkspace(t)];
    const burst = (s: Session) =>
      Promise.all(Array.from({ length: 10 }, (_, i) => create(s, { subject: `Burst ${i}` })));
    const [a, b] = await Promise.all([burst(one), burst(two)]);
    const expected = Array.from({ length: 10 }, (_, i) => `TCK-${i + 1}`).sort();
    expect(keys(a)).toEqual(expected);
    expect(keys(b)).toEqual(expected);

    const sequenceOf = (workspaceId: string) =>
      sql<{ n: number }>(`SELECT count(*)::int AS n FROM pg_sequences WHERE sequencename = ticket_number_sequence($1)`, [
        workspaceId,
      ]);
    expect(await sequenceOf(two.workspaceId)).toEqual([{ n: 1 }]);
    await sql(`DELETE FROM workspaces WHERE id = $1`, [two.workspaceId]);
    expect(await sequenceOf(two.workspaceId)).toEqual([{ n: 0 }]);
    expect((await create(one, { subject: 'After' })).key).toBe('TCK-11');
  });

  it('moves any status to any other, but a CLOSED ticket only reopens; it takes no edits or comments', async () => {
    const admin = await signupWorkspace(t);
    const ticket = await create(admin, { subject: 'Lifecycle' });
    for (const status of ['WAITING', 'IN_PROGRESS', 'RESOLVED', 'OPEN', 'CLOSED']) {
      const res = await t.http.put(`/tickets/${ticket.id}`).set(admin.headers).send({ status }).expect(200);
      expect(res.body.status).toBe(status);
    }
    const closed = (await t.http.get(`/tickets/${ticket.id}`).set(admin.headers).expect(200)).body;
    expect(closed.resolvedAt).toMatch(ISO);
    for (const body of [{ status: 'RESOLVED' }, { status: 'WAITING' }, { priority: 'LOW' }, { subject: 'Edited' }]) {
      const refused = await t.http.put(`/tickets/${ticket.id}`).set(admin.headers).send(body).expect(409);
      expect(refused.body.code).toBe('invalid_transition');
    }
    const comment = await t.http
      .post(`/tickets/${ticket.id}/comments`)
      .set(admin.headers)
      .send({ body: 'Late' })
      .expect(409);
    expect(comment.body.code).toBe('invalid_transition');
    await t.http.put(`/tickets/${ticket.id}`).set(admin.headers).send({ status: 'CLOSED' }).expect(200);
    const reopened = await t.http
      .put(`/tickets/${ticket.id}`)
      .set(admin.headers)
      .send({ status: 'open', priority: 'urgent' })
      .expect(200);
    expect(reopened.body).toMatchObject({ status: 'OPEN', priority: 'URGENT', resolvedAt: null });
  });

  it('keeps comments, oldest first, in GET /tickets/:id; the author is the user, or null for a token', async () => {
    const admin = await signupWorkspace(t);
    const agent = await addMember(t, admin, 'AGENT');
    const token = await apiToken(t, admin);
    const ticket = await create(admin, { subject: 'Discussed' });
    const first = await t.http
      .post(`/tickets/${ticket.id}/comments`)
      .set(agent.headers)
      .send({ body: ' Looking into it ' })
      .expect(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      authorId: agent.userId,
      body: 'Looking into it',
      internal: false,
      createdAt: expect.stringMatching(ISO),
    });
    const second = await t.http
      .post(`/tickets/${ticket.id}/comments`)
      .set(token.headers)
      .send({ body: 'Internal remark', internal: true })
      .expect(201);
    expect(second.body).toMatchObject({ authorId: null, internal: true });
    const got = await t.http.get(`/tickets/${ticket.id}`).set(admin.headers).expect(200);
    expect(got.body.comments).toEqual([first.body, second.body]);
    expect(got.body.updatedAt >= second.body.createdAt).toBe(true);

    for (const body of [{}, { body: '   ' }, { body: 'x', internal: 'yes' }, { body: 'x', extra: 1 }, { body: 5 }]) {
      const bad = await t.http.post(`/tickets/${ticket.id}/comments`).set(admin.headers).send(body).expect(400);
      expect(bad.body.code).toBe('validation_failed');
    }
    await t.http.post(`/tickets/${randomUUID()}/comments`).set(admin.headers).send({ body: 'x' }).expect(404);
    await t.http.post('/tickets/not-a-uuid/comments').set(admin.headers).send({ body: 'x' }).expect(404);
  });

  it('checks references: the assignee is a member, queue and contact belong to the workspace', async () => {
    const admin = await signupWorkspace(t);
    const other = await signupWorkspace(t);
    const agent = await addMember(t, admin, 'AGENT');
    const queueId = await defaultQueueId(admin);
    const contact = await t.http.post('/contacts').set(admin.headers).send({ name: 'Ada' }).expect(201);
    const foreignContact = await t.http.post('/contacts').set(other.headers).send({ name: 'Eve' }).expect(201);

    const ticket = await create(admin, {
      subject: 'Linked',
      assigneeId: agent.userId,
      queueId,
      contactId: contact.body.id,
    });
    expect(ticket).toMatchObject({ assigneeId: agent.userId, queueId, contactId: contact.body.id });

    const cases: [Record<string, unknown>, string][] = [
      [{ assigneeId: other.userId }, 'Assignee not found'],
      [{ assigneeId: randomUUID() }, 'Assignee not found'],
      [{ queueId: await defaultQueueId(other) }, 'Queue not found'],
      [{ contactId: foreignContact.body.id }, 'Contact not found'],
      [{ conversationId: randomUUID() }, 'Conversation not found'],
    ];
    for (const [body, message] of cases) {
      const res = await t.http
        .post('/tickets')
        .set(admin.headers)
        .send({ subject: 'x', ...body })
        .expect(404);
      expect(res.body).toMatchObject({ code: 'not_found', message });
      if (!('conversationId' in body)) {
        const put = await t.http.put(`/tickets/${ticket.id}`).set(admin.headers).send(body).expect(404);
        expect(put.body.message).toBe(message);
      }
    }
    const cleared = await t.http
      .put(`/tickets/${ticket.id}`)
      .set(admin.headers)
      .send({ assigneeId: null, queueId: null, contactId: null, tags: ['A'] })
      .expect(200);
    expect(cleared.body).toMatchObject({ assigneeId: null, queueId: null, contactId: null, tags: ['a'] });

    // A deleted contact leaves its tickets (unlinked).
    const keep = await create(admin, { subject: 'Keep me', contactId: contact.body.id });
    await t.http.delete(`/contacts/${contact.body.id}`).set(admin.headers).expect(204);
    const after = await t.http.get(`/tickets/${keep.id}`).set(admin.headers).expect(200);
    expect(after.body.contactId).toBeNull();
  });

  it('filters by status, priority, search, assignee (me, unassigned), queue, contact, tag, source and dates', async () => {
    const admin = await signupWorkspace(t);
    const agent = await addMember(t, admin, 'AGENT');
    const token = await apiToken(t, admin);
    const queueId = await defaultQueueId(admin);
    const contact = await t.http.post('/contacts').set(admin.headers).send({ name: 'Ada' }).expect(201);
    const a = await create(admin, { subject: 'Refund request', priority: 'HIGH', tags: ['billing'], queueId });
    const b = await create(admin, {
      subject: 'Login broken',
      description: 'Cannot sign in with 100% certainty',
      status: 'WAITING',
      assigneeId: agent.userId,
      contactId: contact.body.id,
    });
    const c = await create(token, { subject: 'Invoice copy', priority: 'LOW', tags: ['Billing', 'vip'] });
    const d = await create(admin, {
      subject: 'Other',
      status: 'IN_PROGRESS',
      priority: 'high',
      assigneeId: admin.userId,
    });
    await sql(`UPDATE tickets SET created_at = '2026-01-05T12:00:00.000Z' WHERE id = $1`, [d.id]);

    expect(keys(await list(admin, ''))).toEqual(keys([a, b, c, d]));
    expect(keys(await list(admin, 'status=open'))).toEqual(keys([a, c]));
    expect(keys(await list(admin, 'status=open,Waiting'))).toEqual(keys([a, b, c]));
    expect(keys(await list(admin, 'status=waiting&status=IN_PROGRESS'))).toEqual(keys([b, d]));
    expect(keys(await list(admin, 'priority=HIGH'))).toEqual(keys([a, d]));
    expect(keys(await list(admin, 'priority=high&status=OPEN'))).toEqual(keys([a]));
    expect(keys(await list(admin, 'search=REFUND'))).toEqual(keys([a]));
    expect(keys(await list(admin, 'search=100%25'))).toEqual(keys([b]));
    expect(keys(await list(admin, `search=${c.key.toLowerCase()}`))).toEqual(keys([c]));
    expect(keys(await list(admin, 'search=nothing-like-this'))).toEqual([]);
    expect(keys(await list(agent, 'assigneeId=me'))).toEqual(keys([b]));
    expect(keys(await list(admin, 'assigneeId=ME'))).toEqual(keys([d]));
    expect(keys(await list(admin, 'assigneeId=unassigned'))).toEqual(keys([a, c]));
    expect(keys(await list(admin, `assigneeId=${agent.userId}`))).toEqual(keys([b]));
    expect(keys(await list(admin, `queueId=${queueId}`))).toEqual(keys([a]));
    expect(keys(await list(admin, `contactId=${contact.body.id}`))).toEqual(keys([b]));
    expect(keys(await list(admin, 'tag=BILLING'))).toEqual(keys([a, c]));
    expect(keys(await list(admin, 'tag=vip'))).toEqual(keys([c]));
    expect(keys(await list(admin, 'source=api'))).toEqual(keys([c]));
    expect(keys(await list(admin, 'to=2026-01-06T00:00:00.000Z'))).toEqual(keys([d]));
    expect(keys(await list(admin, 'from=2026-01-06T00:00:00.000Z'))).toEqual(keys([a, b, c]));
    expect(keys(await list(admin, 'from=2026-01-05T12:00:00.000Z&to=2026-01-05T12:00:00.001Z'))).toEqual(keys([d]));

    // Newest first.
    const all = await list(admin, '');
    const created = all.map((x) => String(x.createdAt));
    expect([...created].sort().reverse()).toEqual(created);

    const bad = [
      'status=bogus',
      'status=OPEN,bogus',
      'priority=extreme',
      'assigneeId=someone',
      'queueId=not-a-uuid',
      'contactId=123',
      'conversationId=x',
      'source=EMAIL',
      'from=yesterday',
      'from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z',
      'limit=0',
      'limit=101',
      'limit=ten',
      'cursor=garbage',
      'unknown=1',
    ];
    for (const query of bad) {
      const res = await t.http.get(`/tickets?${query}`).set(admin.headers);
      expect({ query, status: res.status, code: res.body.code }).toEqual({
        query,
        status: 400,
        code: 'validation_failed',
      });
    }
    const me = await t.http.get('/tickets?assigneeId=me').set(token.headers).expect(400);
    expect(me.body.details[0].field).toBe('assigneeId');
  });

  it('walks 250 tickets with limit 7: no gaps, no repeats, newest first, stable under inserts', async () => {
    const admin = await signupWorkspace(t);
    // Ten tickets share each timestamp, so the id tie-breaker matters.
    await sql(
      `INSERT INTO tickets (workspace_id, number, key, subject, source, priority, created_at)
       SELECT $1, g, 'TCK-' || g, 'Bulk ' || g, 'MANUAL', CASE WHEN g % 2 = 0 THEN 'HIGH' ELSE 'LOW' END,
              '2026-02-01T00:00:00Z'::timestamptz + (g / 10) * interval '1 minute'
         FROM generate_series(1, 250) g`,
      [admin.workspaceId],
    );
    await sql(`SELECT setval(ticket_number_sequence($1)::regclass, 251, false)`, [admin.workspaceId]);

    async function walk(filter: string, insertAfterFirstPage = false): Promise<Ticket[]> {
      const seen: Ticket[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = `/tickets?limit=7${filter}${cursor ? `&cursor=${cursor}` : ''}`;
        const res = await t.http.get(query).set(admin.headers).expect(200);
        expect(res.body.data.length).toBeLessThanOrEqual(7);
        seen.push(...res.body.data);
        cursor = res.body.nextCursor;
        pages++;
        if (insertAfterFirstPage && pages === 1) await create(admin, { subject: 'Inserted mid-walk' });
      } while (cursor);
      return seen;
    }

    const seen = await walk('', true);
    expect(seen).toHaveLength(250);
    expect(new Set(seen.map((x) => x.id)).size).toBe(250);
    expect(seen.every((x) => x.subject !== 'Inserted mid-walk')).toBe(true);
    const order = seen.map((x) => [String(x.createdAt), x.id] as const);
    const sorted = [...order].sort((p, q) => (p[0] === q[0] ? (p[1] < q[1] ? 1 : -1) : p[0] < q[0] ? 1 : -1));
    expect(order).toEqual(sorted);
    expect(new Set(seen.map((x) => x.key))).toEqual(new Set(Array.from({ length: 250 }, (_, i) => `TCK-${i + 1}`)));

    const high = await walk('&priority=HIGH');
    expect(high).toHaveLength(125);
    expect(new Set(high.map((x) => x.id)).size).toBe(125);
    expect(high.every((x) => x.priority === 'HIGH')).toBe(true);
    // The counter continues after the imported numbers.
    expect((await create(admin, { subject: 'Next' })).key).toBe('TCK-252');
  });

  it('builds the board in status order with counts and the newest 50 per column, with the list filters', async () => {
    const admin = await signupWorkspace(t);
    await sql(
      `INSERT INTO tickets (workspace_id, number, key, subject, source, status, priority, created_at)
       SELECT $1, g, 'TCK-' || g, 'Open ' || g, 'MANUAL', 'OPEN', CASE WHEN g <= 5 THEN 'URGENT' ELSE 'LOW' END,
              '2026-02-01T00:00:00Z'::timestamptz + g * interval '1 second'
         FROM generate_series(1, 55) g`,
      [admin.workspaceId],
    );
    await sql(`SELECT setval(ticket_number_sequence($1)::regclass, 56, false)`, [admin.workspaceId]);
    const waiting = await create(admin, { subject: 'Waiting one', status: 'WAITING', priority: 'URGENT' });
    const resolved = await create(admin, { subject: 'Resolved one', status: 'RESOLVED' });

    const board = await t.http.get('/tickets/board').set(admin.headers).expect(200);
    expect(board.body.columns.map((c: { status: string; count: number }) => [c.status, c.count])).toEqual([
      ['OPEN', 55],
      ['IN_PROGRESS', 0],
      ['WAITING', 1],
      ['RESOLVED', 1],
      ['CLOSED', 0],
    ]);
    const open = board.body.columns[0].tickets as Ticket[];
    expect(open).toHaveLength(50);
    expect(open[0]!.key).toBe('TCK-55');
    expect(open[49]!.key).toBe('TCK-6');
    expect(board.body.columns[2].tickets).toEqual([waiting]);
    expect(board.body.columns[3].tickets).toEqual([resolved]);
    expect(board.body.columns[4].tickets).toEqual([]);

    const urgent = await t.http.get('/tickets/board?priority=urgent').set(admin.headers).expect(200);
    expect(urgent.body.columns.map((c: { count: number }) => c.count)).toEqual([5, 0, 1, 0, 0]);
    expect(urgent.body.columns[0].tickets.map((x: Ticket) => x.key)).toEqual([
      'TCK-5',
      'TCK-4',
      'TCK-3',
      'TCK-2',
      'TCK-1',
    ]);
    const searched = await t.http.get('/tickets/board?search=one&status=waiting').set(admin.headers).expect(200);
    expect(searched.body.columns.map((c: { count: number }) => c.count)).toEqual([0, 0, 1, 0, 0]);
    await t.http.get('/tickets/board?limit=5').set(admin.headers).expect(400);
    await t.http.get('/tickets/board?status=nope').set(admin.headers).expect(400);
  });

  it('computes stats in SQL: by status and priority, overdue, created/resolved today in the workspace timezone, mean resolution', async () => {
    const admin = await signupWorkspace(t);
    // UTC+14 all year (no DST): the workspace's day starts at 10:00 UTC the day before.
    const tz = 'Pacific/Kiritimati';
    await t.http.put('/workspace').set(admin.headers).send({ timezone: tz }).expect(200);
    const day = new Intl.DateTimeFormat('en-CA', {
      timeZone: tz,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    }).format(new Date());
    const todayStart = new Date(`${day}T00:00:00.000+14:00`).getTime();
    const at = (ms: number) => new Date(ms).toISOString();

    const t1 = await create(admin, { subject: 'Open overdue', priority: 'HIGH', dueAt: at(Date.now() - 60_000) });
    const t2 = await create(admin, { subject: 'Open not due', priority: 'HIGH', dueAt: at(Date.now() + 3_600_000) });
    const t3 = await create(admin, { subject: 'Waiting overdue', status: 'WAITING', dueAt: at(Date.now() - 1) });
    const t4 = await create(admin, { subject: 'Resolved late', status: 'RESOLVED', dueAt: at(Date.now() - 60_000) });
    const t5 = await create(admin, { subject: 'Closed', status: 'CLOSED', priority: 'URGENT' });
    const t6 = await create(admin, { subject: 'Yesterday', priority: 'LOW' });
    // Hand-set times: t4 took 1 h, t5 2 h; t6 was created a millisecond before the workspace's midnight.
    await sql(`UPDATE tickets SET created_at = $2, resolved_at = $3 WHERE id = $1`, [
      t4.id,
      at(todayStart - 3_600_000),
      at(todayStart),
    ]);
    await sql(`UPDATE tickets SET created_at = $2, resolved_at = $3 WHERE id = $1`, [
      t5.id,
      at(todayStart - 7_200_000 - 1),
      at(todayStart - 1),
    ]);
    await sql(`UPDATE tickets SET created_at = $2 WHERE id = $1`, [t6.id, at(todayStart - 1)]);
    void t1;
    void t2;
    void t3;

    const stats = await t.http.get('/tickets/stats').set(admin.headers).expect(200);
    expect(stats.body).toEqual({
      byStatus: { OPEN: 3, IN_PROGRESS: 0, WAITING: 1, RESOLVED: 1, CLOSED: 1 },
      byPriority: { LOW: 1, MEDIUM: 2, HIGH: 2, URGENT: 1 },
      overdue: 2,
      createdToday: 3,
      resolvedToday: 1,
      averageResolutionSeconds: 5400,
    });
    const high = await t.http.get('/tickets/stats?priority=HIGH').set(admin.headers).expect(200);
    expect(high.body).toMatchObject({
      byStatus: { OPEN: 2, IN_PROGRESS: 0, WAITING: 0, RESOLVED: 0, CLOSED: 0 },
      byPriority: { LOW: 0, MEDIUM: 0, HIGH: 2, URGENT: 0 },
      overdue: 1,
      createdToday: 2,
      resolvedToday: 0,
      averageResolutionSeconds: null,
    });
    const empty = await signupWorkspace(t);
    const none = await t.http.get('/tickets/stats').set(empty.headers).expect(200);
    expect(none.body).toEqual({
      byStatus: { OPEN: 0, IN_PROGRESS: 0, WAITING: 0, RESOLVED: 0, CLOSED: 0 },
      byPriority: { LOW: 0, MEDIUM: 0, HIGH: 0, URGENT: 0 },
      overdue: 0,
      createdToday: 0,
      resolvedToday: 0,
      averageResolutionSeconds: null,
    });
    await t.http.get('/tickets/stats?cursor=x').set(admin.headers).expect(400);
  });

  it('settings: defaults, partial updates, validation; tickets.settings is needed to change them', async () => {
    const admin = await signupWorkspace(t);
    const agent = await addMember(t, admin, 'AGENT');
    const supervisor = await addMember(t, admin, 'SUPERVISOR');
    const defaults = {
      autoCreateFromConversation: true,
      keyPrefix: 'TCK',
      defaultPriority: 'MEDIUM',
      resolveWithConversation: false,
    };
    expect((await t.http.get('/tickets/settings').set(agent.headers).expect(200)).body).toEqual(defaults);
    await t.http.put('/tickets/settings').set(agent.headers).send({ keyPrefix: 'AG' }).expect(403);
    const changed = await t.http
      .put('/tickets/settings')
      .set(supervisor.headers)
      .send({ defaultPriority: 'low', resolveWithConversation: true })
      .expect(200);
    expect(changed.body).toEqual({ ...defaults, defaultPriority: 'LOW', resolveWithConversation: true });
    const again = await t.http
      .put('/tickets/settings')
      .set(admin.headers)
      .send({ autoCreateFromConversation: false })
      .expect(200);
    expect(again.body).toEqual({
      ...defaults,
      defaultPriority: 'LOW',
      resolveWithConversation: true,
      autoCreateFromConversation: false,
    });
    expect((await create(admin, { subject: 'Default priority' })).priority).toBe('LOW');

    for (const body of [
      { keyPrefix: '1AB' },
      { keyPrefix: 'TOO-LONG' },
      { keyPrefix: 'ABCDEFGHIJK' },
      { keyPrefix: '' },
      { defaultPriority: 'NORMAL' },
      { autoCreateFromConversation: 'yes' },
      { resolveWithConversation: null },
      { other: true },
    ]) {
      const res = await t.http.put('/tickets/settings').set(admin.headers).send(body).expect(400);
      expect(res.body.code).toBe('validation_failed');
    }
    const invalidJson = await t.http
      .put('/tickets/settings')
      .set(admin.headers)
      .set('content-type', 'application/json')
      .send('{"keyPrefix":')
      .expect(400);
    expect(invalidJson.body.code).toBe('invalid_json');
  });

  it('permissions: agents view and manage tickets; without tickets.view or tickets.manage they are refused', async () => {
    const admin = await signupWorkspace(t);
    const agent = await addMember(t, admin, 'AGENT');
    const ticket = await create(agent, { subject: 'By an agent' });
    await t.http.get('/tickets').set(agent.headers).expect(200);
    await t.http.get('/tickets/board').set(agent.headers).expect(200);
    await t.http.get('/tickets/stats').set(agent.headers).expect(200);
    await t.http.put(`/tickets/${ticket.id}`).set(agent.headers).send({ status: 'WAITING' }).expect(200);
    await t.http.post(`/tickets/${ticket.id}/comments`).set(agent.headers).send({ body: 'ok' }).expect(201);

    await t.http
      .put('/permissions')
      .set(admin.headers)
      .send({ matrix: { AGENT: ['tickets.view'] } })
      .expect(200);
    await t.http.get(`/tickets/${ticket.id}`).set(agent.headers).expect(200);
    for (const [method, path] of [
      ['post', '/tickets'],
      ['put', `/tickets/${ticket.id}`],
      ['delete', `/tickets/${ticket.id}`],
      ['post', `/tickets/${ticket.id}/comments`],
    ] as const) {
      const res = await t.http[method](path).set(agent.headers).send({ subject: 'x', body: 'x' }).expect(403);
      expect(res.body.code).toBe('forbidden');
    }
    await t.http
      .put('/permissions')
      .set(admin.headers)
      .send({ matrix: { AGENT: [] } })
      .expect(200);
    for (const path of ['/tickets', '/tickets/board', '/tickets/stats', '/tickets/settings', `/tickets/${ticket.id}`]) {
      await t.http.get(path).set(agent.headers).expect(403);
    }
    await t.http.get('/tickets').expect(401);
  });

  it('isolates workspaces: tickets, comments and settings of another workspace are invisible (404)', async () => {
    const a = await signupWorkspace(t, 'A');
    const b = await signupWorkspace(t, 'B');
    const ticket = await create(a, { subject: 'Secret of A', tags: ['a'] });
    const comment = await t.http
      .post(`/tickets/${ticket.id}/comments`)
      .set(a.headers)
      .send({ body: 'Only A' })
      .expect(201);
    await t.http.put('/tickets/settings').set(a.headers).send({ keyPrefix: 'AAA' }).expect(200);

    await t.http.get(`/tickets/${ticket.id}`).set(b.headers).expect(404);
    await t.http.put(`/tickets/${ticket.id}`).set(b.headers).send({ subject: 'Mine now' }).expect(404);
    await t.http.delete(`/tickets/${ticket.id}`).set(b.headers).expect(404);
    await t.http.post(`/tickets/${ticket.id}/comments`).set(b.headers).send({ body: 'Hi' }).expect(404);
    expect((await t.http.get('/tickets').set(b.headers).expect(200)).body.data).toEqual([]);
    expect((await t.http.get('/tickets?tag=a').set(b.headers).expect(200)).body.data).toEqual([]);
    const board = await t.http.get('/tickets/board').set(b.headers).expect(200);
    expect(board.body.columns.every((c: { count: number }) => c.count === 0)).toBe(true);
    expect((await t.http.get('/tickets/stats').set(b.headers).expect(200)).body.byStatus.OPEN).toBe(0);
    expect((await t.http.get('/tickets/settings').set(b.headers).expect(200)).body.keyPrefix).toBe('TCK');
    expect((await create(b, { subject: 'B first' })).key).toBe('TCK-1');

    // A user of B naming A's workspace is not a member.
    await t.http
      .get(`/tickets/${ticket.id}`)
      .set({ ...b.headers, 'x-workspace-id': a.workspaceId })
      .expect(403);
    const still = await t.http.get(`/tickets/${ticket.id}`).set(a.headers).expect(200);
    expect(still.body).toMatchObject({ subject: 'Secret of A', comments: [comment.body] });
  });

  it('answers bad input with 4xx, never 5xx', async () => {
    const admin = await signupWorkspace(t);
    const ticket = await create(admin, { subject: 'Target' });
    for (const id of ['not-a-uuid', '123', randomUUID(), 'ffffffff-ffff-ffff-ffff-fffffffffff']) {
      await t.http.get(`/tickets/${id}`).set(admin.headers).expect(404);
      await t.http.put(`/tickets/${id}`).set(admin.headers).send({ subject: 'x' }).expect(404);
      await t.http.delete(`/tickets/${id}`).set(admin.headers).expect(404);
    }
    const badCreates: Record<string, unknown>[] = [
      {},
      { subject: '' },
      { subject: '   ' },
      { subject: 'x'.repeat(201) },
      { subject: 5 },
      { subject: 'x', status: 'DONE' },
      { subject: 'x', priority: 'P1' },
      { subject: 'x', assigneeId: 'me' },
      { subject: 'x', queueId: 'nope' },
      { subject: 'x', tags: 'vip' },
      { subject: 'x', tags: [1] },
      { subject: 'x', tags: Array(21).fill('t') },
      { subject: 'x', dueAt: 'tomorrow' },
      { subject: 'x', source: 'CONVERSATION' },
      { subject: 'x', key: 'TCK-99' },
      { subject: 'x', workspaceId: randomUUID() },
    ];
    for (const body of badCreates) {
      const res = await t.http.post('/tickets').set(admin.headers).send(body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 400,
        code: 'validation_failed',
      });
      expect(Array.isArray(res.body.details)).toBe(true);
    }
    for (const body of [{ subject: null }, { status: null }, { priority: 'none' }, { conversationId: randomUUID() }]) {
      await t.http.put(`/tickets/${ticket.id}`).set(admin.headers).send(body).expect(400);
    }
    const malformed = await t.http
      .post('/tickets')
      .set(admin.headers)
      .set('content-type', 'application/json')
      .send('{"subject": "x"')
      .expect(400);
    expect(malformed.body.code).toBe('invalid_json');
    const unchanged = await t.http.get(`/tickets/${ticket.id}`).set(admin.headers).expect(200);
    expect(unchanged.body).toEqual({ ...ticket, comments: [] });
  });

  it('documents every ticket route in the OpenAPI document', async () => {
    const doc = await t.http.get('/docs-json').expect(200);
    const paths: Record<string, Record<string, unknown>> = doc.body.paths;
    const methods = (path: string) => Object.keys(paths[path] ?? {}).sort();
    expect(methods('/tickets')).toEqual(['get', 'post']);
    expect(methods('/tickets/{id}')).toEqual(['delete', 'get', 'put']);
    expect(methods('/tickets/{id}/comments')).toEqual(['post']);
    expect(methods('/tickets/board')).toEqual(['get']);
    expect(methods('/tickets/stats')).toEqual(['get']);
    expect(methods('/tickets/settings')).toEqual(['get', 'put']);
    expect(Object.keys(doc.body.components.schemas)).toEqual(
      expect.arrayContaining(['TicketResponse', 'CreateTicketDto', 'TicketBoardResponse', 'TicketStatsResponse']),
    );
  });
});
