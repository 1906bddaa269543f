import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, addMember, setPlan, signupWorkspace } from '../../utils/sessions';
import {
  type CustomChannel,
  connectCustom,
  conversationOfMessage,
  eventReaches,
  inboxEnv,
  postCustom,
  sql,
} from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';

type Body = Record<string, unknown>;
type Run = {
  automationId: string;
  trigger: string;
  conversationId: string | null;
  matched: boolean;
  status: string;
  actions: { type: string; status: string; error: string | null }[];
  durationMs: number;
};

describe('RULE engine: real inbound messages, API events, every action, run log, loop guard', () => {
  let t: TestApp;
  let mock: MockPlatform;
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock) });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  async function workspace(): Promise<{ admin: Session; channel: CustomChannel }> {
    const admin = await signupWorkspace(t, 'Rules');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
    const channel = await connectCustom(t, admin, mock, { path: `/custom/${admin.workspaceId}` });
    return { admin, channel };
  }

  async function rule(s: Session, body: Body): Promise<string> {
    return (
      await t.http
        .post('/automations')
        .set(s.headers)
        .send({ kind: 'RULE', name: 'rule', ...body })
        .expect(201)
    ).body.id;
  }

  async function inbound(admin: Session, channel: CustomChannel, message: Body): Promise<string> {
    const ack = await postCustom(t, channel, message).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    expect(event.outcome).toBe('MESSAGE_STORED');
    return conversationOfMessage(t, event.messageId as string);
  }

  async function runsOf(s: Session, automationId: string): Promise<Run[]> {
    return (await t.http.get(`/automations/runs?automationId=${automationId}`).set(s.headers).expect(200)).body.data;
  }

  /** Conditions and actions of a rule that matches messages containing `word`. */
  const containsRule = (word: string): Body => ({
    conditions: { all: [{ field: 'message.text', operator: 'contains', value: word }] },
    actions: [{ type: 'ADD_TAGS', params: { tags: [word] } }],
  });

  const conversation = async (s: Session, id: string) =>
    (await t.http.get(`/conversations/${id}`).set(s.headers).expect(200)).body;

  it('tags and prioritises "refund" messages, replies with the contact name; each run is logged once', async () => {
    const { admin, channel } = await workspace();
    const refund = await rule(admin, {
      name: 'Refunds',
      trigger: 'message.received',
      conditions: { all: [{ field: 'message.text', operator: 'contains', value: 'REFUND' }] },
      actions: [
        { type: 'ADD_TAGS', params: { tags: ['refund'] } },
        { type: 'SET_PRIORITY', params: { priority: 'HIGH' } },
      ],
      order: 1,
    });
    const greet = await rule(admin, {
      name: 'Greeting',
      trigger: 'conversation.created',
      actions: [
        {
          type: 'SEND_REPLY',
          params: {
            text: 'Hi {{contact.name}}{{contact.unknown}}, we got conversation {{conversation.id}} ({{ticket.key}})',
          },
        },
      ],
      order: 2,
    });
    const conversationId = await inbound(admin, channel, {
      senderId: 'ada-1',
      senderName: 'Ada Lovelace',
      text: 'I would like a Refund for order 12',
    });
    const after = await conversation(admin, conversationId);
    expect(after.tags).toEqual(['refund']);
    expect(after.priority).toBe('HIGH');
    const outbound = await eventually(async () => {
      const sent = mock.received(`/custom/${admin.workspaceId}`, 'POST');
      expect(sent).toHaveLength(1);
      return sent[0]!.json as Body;
    });
    expect(outbound).toEqual({
      recipientId: 'ada-1',
      message: { type: 'TEXT', text: `Hi Ada Lovelace, we got conversation ${conversationId} (TCK-1)` },
      sentAt: expect.any(String),
    });
    const reply = after.messages.find((m: Body) => m.direction === 'OUTBOUND');
    expect(reply).toMatchObject({
      senderType: 'AUTOMATION',
      text: `Hi Ada Lovelace, we got conversation ${conversationId} (TCK-1)`,
    });

    expect(await runsOf(admin, refund)).toEqual([
      {
        id: expect.any(String),
        automationId: refund,
        trigger: 'message.received',
        conversationId,
        matched: true,
        status: 'SUCCESS',
        actions: [
          { type: 'ADD_TAGS', status: 'SUCCESS', error: null },
          { type: 'SET_PRIORITY', status: 'SUCCESS', error: null },
        ],
        durationMs: expect.any(Number),
        createdAt: expect.any(String),
      },
    ]);
    expect((await runsOf(admin, greet)).map((r) => [r.trigger, r.status])).toEqual([
      ['conversation.created', 'SUCCESS'],
    ]);

    // A second message: no new conversation, refund rule evaluated again but does not match → SKIPPED
    // (a run that changed nothing, written just after the event's commit: DESIGN §8 run log).
    await inbound(admin, channel, { senderId: 'ada-1', text: 'thanks' });
    await eventually(async () => {
      const runs = await runsOf(admin, refund);
      expect(runs.map((r) => [r.matched, r.status, r.actions])).toEqual([
        [false, 'SKIPPED', []],
        [true, 'SUCCESS', expect.any(Array)],
      ]);
    });
    expect((await runsOf(admin, greet)).length).toBe(1);
    const saved = (await t.http.get(`/automations/${refund}`).set(admin.headers).expect(200)).body;
    expect(saved.runCount).toBe(1);
    expect(saved.lastRunAt).toEqual(expect.any(String));
    const failedOnly = (await t.http.get('/automations/runs?status=skipped').set(admin.headers).expect(200)).body.data;
    expect(failedOnly.map((r: Run) => r.automationId)).toEqual([refund]);
    const future = (await t.http.get('/automations/runs?from=2099-01-01T00:00:00Z').set(admin.headers).expect(200))
      .body;
    expect(future.data).toEqual([]);
    const paged = (await t.http.get('/automations/runs?limit=1').set(admin.headers).expect(200)).body;
    expect(paged.nextCursor).toEqual(expect.any(String));

    // Deleting an automation deletes its runs (matched and SKIPPED), in the deleting transaction;
    // the other automation's runs stay.
    await t.http.delete(`/automations/${refund}`).set(admin.headers).expect(204);
    expect(await runsOf(admin, refund)).toEqual([]);
    const left = await sql<{ automation_id: string; n: string }>(
      t,
      'SELECT automation_id, count(*) AS n FROM automation_runs WHERE workspace_id = $1 GROUP BY automation_id',
      [admin.workspaceId],
    );
    expect(left.map((r) => [r.automation_id, Number(r.n)])).toEqual([[greet, 1]]);
  });

  it('SKIPPED runs: one stored row per event, one run per rule when read, paged with the matched runs', async () => {
    const { admin, channel } = await workspace();
    const [a, b, c] = [
      await rule(admin, { name: 'a', trigger: 'message.received', ...containsRule('zebra') }),
      await rule(admin, { name: 'b', trigger: 'message.received', ...containsRule('yak') }),
      await rule(admin, { name: 'c', trigger: 'message.received', ...containsRule('xerus') }),
    ];
    await inbound(admin, channel, { senderId: 'sk-1', text: 'a zebra' });
    await inbound(admin, channel, { senderId: 'sk-1', text: 'hello' });
    await inbound(admin, channel, { senderId: 'sk-1', text: 'hello again' });
    const all = async (): Promise<(Run & { id: string; createdAt: string })[]> =>
      (await t.http.get('/automations/runs?limit=100').set(admin.headers).expect(200)).body.data;
    // a matched once; b and c skipped three events, a two: 1 + 8 runs (SKIPPED ones land after the commit).
    const runs = await eventually(async () => {
      const got = await all();
      expect(got).toHaveLength(9);
      return got;
    });
    expect(runs.filter((r) => r.status === 'SUCCESS').map((r) => r.automationId)).toEqual([a]);
    expect(runs.filter((r) => r.status === 'SKIPPED')).toHaveLength(8);
    expect(runs.filter((r) => r.status === 'SKIPPED').every((r) => !r.matched && r.actions.length === 0)).toBe(true);
    expect(new Set(runs.map((r) => r.id)).size).toBe(9);
    const times = runs.map((r) => Date.parse(r.createdAt));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    // Stored: the three events' skipped rules as one row each, none as a row per rule.
    const [stored] = await sql<{ skips: number; rows: number }>(
      t,
      `SELECT (SELECT count(*)::int FROM automation_skips WHERE workspace_id = $1) AS skips,
              (SELECT count(*)::int FROM automation_runs WHERE workspace_id = $1 AND status = 'SKIPPED') AS rows`,
      [admin.workspaceId],
    );
    expect(stored).toEqual({ skips: 3, rows: 0 });
    // The same runs, same ids, page by page (keyset across both tables).
    const paged: Run[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${cursor}` : '';
      const page = (await t.http.get(`/automations/runs?limit=2${query}`).set(admin.headers).expect(200)).body;
      expect(page.data.length).toBeLessThanOrEqual(2);
      paged.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    expect(paged).toEqual(runs);
    expect((await runsOf(admin, a)).map((r) => r.status)).toEqual(['SKIPPED', 'SKIPPED', 'SUCCESS']);
    expect((await runsOf(admin, b)).map((r) => r.status)).toEqual(['SKIPPED', 'SKIPPED', 'SKIPPED']);
    const skippedOnly = (await t.http.get('/automations/runs?status=SKIPPED&limit=100').set(admin.headers).expect(200))
      .body.data;
    expect(skippedOnly).toEqual(runs.filter((r) => r.status === 'SKIPPED'));
    const success = (await t.http.get('/automations/runs?status=SUCCESS').set(admin.headers).expect(200)).body.data;
    expect(success.map((r: Run) => r.automationId)).toEqual([a]);
    const newest = runs[0]!.createdAt;
    const since = (await t.http.get(`/automations/runs?limit=100&from=${newest}`).set(admin.headers).expect(200)).body
      .data;
    expect(since).toEqual(runs.filter((r) => r.createdAt >= newest));
    const before = (await t.http.get(`/automations/runs?limit=100&to=${newest}`).set(admin.headers).expect(200)).body
      .data;
    expect(before).toEqual(runs.filter((r) => r.createdAt < newest));

    // A deleted rule's SKIPPED runs are gone from every listing; the others' stay, with the same ids.
    await t.http.delete(`/automations/${b}`).set(admin.headers).expect(204);
    expect(await all()).toEqual(runs.filter((r) => r.automationId !== b));
    expect(await runsOf(admin, b)).toEqual([]);
    expect((await runsOf(admin, c)).map((r) => r.status)).toEqual(['SKIPPED', 'SKIPPED', 'SKIPPED']);

    // Another workspace sees none of them.
    const other = await signupWorkspace(t, 'Other runs');
    expect((await t.http.get('/automations/runs').set(other.headers).expect(200)).body.data).toEqual([]);
    expect((await t.http.get(`/automations/runs?automationId=${c}`).set(other.headers).expect(200)).body.data).toEqual(
      [],
    );
  });

  it('every action through the real services; a failing action is recorded and the next still runs', async () => {
    const { admin, channel } = await workspace();
    const agent = await addMember(t, admin, 'AGENT');
    const queue = (
      await t.http
        .post('/queues')
        .set(admin.headers)
        .send({ name: 'VIP', strategy: 'MANUAL', memberIds: [agent.userId] })
        .expect(201)
    ).body.id;
    const id = await rule(admin, {
      trigger: 'message.received',
      conditions: { any: [{ field: 'message.text', operator: 'starts_with', value: 'vip' }] },
      actions: [
        { type: 'ASSIGN_QUEUE', params: { queueId: queue } },
        { type: 'ASSIGN_AGENT', params: { userId: agent.userId } },
        { type: 'SET_STATUS', params: { status: 'CLOSED' } },
        { type: 'ADD_NOTE', params: { text: 'VIP customer {{contact.name}}' } },
        { type: 'CREATE_TICKET', params: { subject: 'VIP: {{message.text}}', priority: 'URGENT' } },
        { type: 'SEND_REPLY', params: { text: 'Your ticket is {{ticket.key}}' } },
        { type: 'SET_STATUS', params: { status: 'ON_HOLD' } },
      ],
    });
    const conversationId = await inbound(admin, channel, { senderId: 'vip-1', senderName: 'Vera', text: 'VIP here' });
    const [run] = await runsOf(admin, id);
    expect(run!.status).toBe('FAILED');
    expect(run!.actions.map((a) => [a.type, a.status])).toEqual([
      ['ASSIGN_QUEUE', 'SUCCESS'],
      ['ASSIGN_AGENT', 'SUCCESS'],
      ['SET_STATUS', 'FAILED'],
      ['ADD_NOTE', 'SUCCESS'],
      ['CREATE_TICKET', 'SUCCESS'],
      ['SEND_REPLY', 'SUCCESS'],
      ['SET_STATUS', 'SUCCESS'],
    ]);
    expect(run!.actions[2]!.error).toContain('CLOSED');
    const after = await conversation(admin, conversationId);
    expect(after).toMatchObject({ queueId: queue, assigneeId: agent.userId, status: 'ON_HOLD' });
    expect(after.notes.map((n: Body) => n.text)).toEqual(['VIP customer Vera']);
    const tickets = (await t.http.get(`/tickets?conversationId=${conversationId}`).set(admin.headers).expect(200)).body
      .data;
    const vip = tickets.find((tk: Body) => tk.subject === 'VIP: VIP here');
    expect(vip).toMatchObject({ priority: 'URGENT', conversationId });
    expect(after.messages.find((m: Body) => m.direction === 'OUTBOUND').text).toBe(`Your ticket is ${vip.key}`);
  });

  it('runs on events from the API (ticket.updated, conversation.resolved) and on contact custom fields', async () => {
    const { admin, channel } = await workspace();
    const conversationId = await inbound(admin, channel, { senderId: 'gold-1', senderName: 'Gus', text: 'hello' });
    const contactId = (await conversation(admin, conversationId)).contactId;
    await t.http
      .post('/contacts/fields')
      .set(admin.headers)
      .send({ key: 'orders', label: 'Orders', type: 'NUMBER' })
      .expect(201);
    await t.http
      .put(`/contacts/${contactId}`)
      .set(admin.headers)
      .send({ customFields: { orders: 12 } })
      .expect(200);
    const resolved = await rule(admin, {
      trigger: 'conversation.resolved',
      conditions: { all: [{ field: 'contact.customFields.orders', operator: 'greater_than', value: 9 }] },
      actions: [
        {
          type: 'ADD_NOTE',
          params: { text: 'Resolved for a loyal customer ({{contact.customFields.orders}} orders)' },
        },
      ],
    });
    const ticketRule = await rule(admin, {
      trigger: 'ticket.updated',
      conditions: { all: [{ field: 'ticket.status', operator: 'equals', value: 'WAITING' }] },
      actions: [{ type: 'ADD_TAGS', params: { tags: ['waiting-on-customer'] } }],
    });
    const ticket = (
      await t.http.post('/tickets').set(admin.headers).send({ subject: 'Check order', conversationId }).expect(201)
    ).body;
    await t.http.put(`/tickets/${ticket.id}`).set(admin.headers).send({ status: 'WAITING' }).expect(200);
    await eventually(async () => {
      const got = (await t.http.get(`/tickets/${ticket.id}`).set(admin.headers).expect(200)).body;
      expect(got.tags).toEqual(['waiting-on-customer']);
    });
    // Its own tag change published ticket.updated again: the rule did not re-run on it.
    expect((await runsOf(admin, ticketRule)).map((r) => r.status)).toEqual(['SUCCESS']);

    await t.http.post(`/conversations/${conversationId}/wrap-up`).set(admin.headers).send({}).expect(200);
    const notes = await eventually(async () => {
      const got = await conversation(admin, conversationId);
      expect(got.notes).toHaveLength(1);
      return got.notes;
    });
    expect(notes[0].text).toBe('Resolved for a loyal customer (12 orders)');
    expect((await runsOf(admin, resolved))[0]).toMatchObject({ trigger: 'conversation.resolved', status: 'SUCCESS' });
  });

  it('loop guard: an automation never re-triggers itself, and a chain stops at depth 3', async () => {
    const { admin } = await workspace();
    const self = await rule(admin, {
      trigger: 'ticket.updated',
      actions: [
        { type: 'SET_PRIORITY', params: { priority: 'URGENT' } },
        { type: 'ADD_TAGS', params: { tags: ['self'] } },
      ],
      active: false,
    });
    const r1 = await rule(admin, {
      trigger: 'ticket.created',
      actions: [{ type: 'SET_PRIORITY', params: { priority: 'HIGH' } }],
    });
    const r2 = await rule(admin, {
      trigger: 'ticket.updated',
      conditions: { all: [{ field: 'ticket.priority', operator: 'equals', value: 'HIGH' }] },
      actions: [{ type: 'ADD_TAGS', params: { tags: ['t2'] } }],
    });
    const r3 = await rule(admin, {
      trigger: 'ticket.updated',
      conditions: { all: [{ field: 'ticket.tags', operator: 'contains', value: 't2' }] },
      actions: [{ type: 'ADD_TAGS', params: { tags: ['t3'] } }],
    });
    const r4 = await rule(admin, {
      trigger: 'ticket.updated',
      conditions: { all: [{ field: 'ticket.tags', operator: 'contains', value: 't3' }] },
      actions: [{ type: 'ADD_TAGS', params: { tags: ['t4'] } }],
    });
    const ticket = (await t.http.post('/tickets').set(admin.headers).send({ subject: 'Chain' }).expect(201)).body;
    const final = await eventually(async () => {
      const got = (await t.http.get(`/tickets/${ticket.id}`).set(admin.headers).expect(200)).body;
      expect(got.tags).toEqual(['t2', 't3']);
      return got;
    });
    expect(final.priority).toBe('HIGH');
    // r4 saw the chain r1 → r2 → r3 only at depth 3: it was not evaluated then (it is evaluated, and
    // skipped, on the earlier, shallower events).
    expect((await runsOf(admin, r4)).every((r) => !r.matched)).toBe(true);
    expect((await runsOf(admin, r1)).map((r) => r.status)).toEqual(['SUCCESS']);
    expect((await runsOf(admin, r2)).filter((r) => r.matched)).toHaveLength(1);
    expect((await runsOf(admin, r3)).filter((r) => r.matched)).toHaveLength(1);

    // The self-triggering rule: one manual change, one run, although its own actions publish ticket.updated twice.
    for (const other of [r1, r2, r3, r4]) await t.http.delete(`/automations/${other}`).set(admin.headers).expect(204);
    const b = (await t.http.post('/tickets').set(admin.headers).send({ subject: 'Self', priority: 'LOW' }).expect(201))
      .body;
    await t.http
      .put(`/automations/${self}`)
      .set(admin.headers)
      .send({
        kind: 'RULE',
        name: 'self',
        active: true,
        trigger: 'ticket.updated',
        actions: [
          { type: 'SET_PRIORITY', params: { priority: 'URGENT' } },
          { type: 'ADD_TAGS', params: { tags: ['self'] } },
        ],
      })
      .expect(200);
    await t.http.put(`/tickets/${b.id}`).set(admin.headers).send({ subject: 'Self (edited)' }).expect(200);
    await eventually(async () => {
      const got = (await t.http.get(`/tickets/${b.id}`).set(admin.headers).expect(200)).body;
      expect(got).toMatchObject({ priority: 'URGENT', tags: ['self'] });
    });
    expect((await runsOf(admin, self)).map((r) => r.status)).toEqual(['SUCCESS']);
  });

  it('a change to the rules is seen on the next event (cache invalidated through the database)', async () => {
    const { admin, channel } = await workspace();
    const id = await rule(admin, {
      trigger: 'message.received',
      conditions: { all: [{ field: 'message.text', operator: 'equals', value: 'ping' }] },
      actions: [{ type: 'ADD_TAGS', params: { tags: ['pinged'] } }],
    });
    const c = await inbound(admin, channel, { senderId: 'p-1', text: 'ping' });
    expect((await conversation(admin, c)).tags).toEqual(['pinged']);
    await t.http
      .put(`/automations/${id}`)
      .set(admin.headers)
      .send({
        kind: 'RULE',
        name: 'rule',
        active: false,
        trigger: 'message.received',
        actions: [{ type: 'ADD_TAGS', params: { tags: ['pinged'] } }],
      })
      .expect(200);
    await inbound(admin, channel, { senderId: 'p-1', text: 'ping' });
    expect(await runsOf(admin, id)).toHaveLength(1);
    const [version] = await sql<{ version: string }>(
      t,
      'SELECT version FROM automation_cache_versions WHERE workspace_id = $1',
      [admin.workspaceId],
    );
    expect(Number(version!.version)).toBe(2);
  });
});
