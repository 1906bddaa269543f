import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, addMember, signupWorkspace } from '../../utils/sessions';
import { sql } from '../inbox/inbox-helpers';

type Body = Record<string, unknown>;

/** DESIGN §8 / §14 literals. */
const RULE_TRIGGERS = [
  'conversation.created',
  'message.received',
  'conversation.resolved',
  'ticket.created',
  'ticket.updated',
];
const OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'in',
  'not_in',
  'is_set',
  'is_not_set',
  'greater_than',
  'less_than',
];
const ACTIONS = [
  'ASSIGN_QUEUE',
  'ASSIGN_AGENT',
  'SET_PRIORITY',
  'ADD_TAGS',
  'SEND_REPLY',
  'ADD_NOTE',
  'CREATE_TICKET',
  'SET_STATUS',
];
const STEPS = [
  'SEND_TEXT',
  'SEND_BUTTONS',
  'SEND_IMAGE',
  'ASSIGN_QUEUE',
  'CREATE_TICKET',
  'ADD_TAGS',
  'HANDOFF_AI',
  'HANDOFF_HUMAN',
];

describe('automations API: meta, CRUD, validation, /test, permissions, workspaces', () => {
  let t: TestApp;
  let admin: Session;
  beforeAll(async () => {
    t = await createTestApp({ env: { LOGIN_RATE_LIMIT: '100000' } });
    admin = await signupWorkspace(t, 'Automations');
  });
  afterAll(async () => {
    await t.close();
  });

  const create = (s: Session, body: Body) => t.http.post('/automations').set(s.headers).send(body);
  const refundRule = (extra: Body = {}): Body => ({
    name: 'Refunds',
    kind: 'RULE',
    trigger: 'message.received',
    conditions: { all: [{ field: 'message.text', operator: 'contains', value: 'refund' }], any: [] },
    actions: [
      { type: 'ADD_TAGS', params: { tags: ['refund'] } },
      { type: 'SET_PRIORITY', params: { priority: 'HIGH' } },
    ],
    ...extra,
  });

  it('GET /automations/meta lists every trigger, field with type and operators, action and step with parameters', async () => {
    const meta = (await t.http.get('/automations/meta').set(admin.headers).expect(200)).body;
    expect(meta.triggers.RULE.map((tr: Body) => tr.name)).toEqual(RULE_TRIGGERS);
    expect(meta.triggers.FLOW.map((tr: Body) => tr.type).sort()).toEqual(['AD_REFERRAL', 'KEYWORD', 'POSTBACK']);
    expect(meta.operators.sort()).toEqual([...OPERATORS].sort());
    expect(meta.actions.map((a: Body) => a.type).sort()).toEqual([...ACTIONS].sort());
    expect(meta.steps.map((a: Body) => a.type).sort()).toEqual([...STEPS].sort());
    const text = meta.fields.find((f: Body) => f.field === 'message.text');
    expect(text).toMatchObject({ type: 'text', operators: expect.arrayContaining(['contains', 'starts_with']) });
    expect(meta.fields.find((f: Body) => f.field === 'contact.customFields.<key>')).toBeDefined();
    expect(meta.fields.map((f: Body) => f.field)).toEqual(
      expect.arrayContaining(['conversation.priority', 'contact.name', 'ticket.status', 'ticket.key']),
    );
    const assign = meta.actions.find((a: Body) => a.type === 'ASSIGN_QUEUE');
    expect(assign.params).toEqual([expect.objectContaining({ name: 'queueId', type: 'uuid', required: true })]);
    const buttons = meta.steps.find((a: Body) => a.type === 'SEND_BUTTONS');
    expect(buttons.params.map((p: Body) => p.name)).toEqual(['text', 'buttons']);
  });

  it('creates, reads, lists with kind/active filters, replaces and deletes', async () => {
    const s = await signupWorkspace(t, 'Crud');
    const rule = (await create(s, refundRule({ order: 5 })).expect(201)).body;
    expect(rule).toEqual({
      id: expect.any(String),
      name: 'Refunds',
      active: true,
      kind: 'RULE',
      trigger: 'message.received',
      conditions: { all: [{ field: 'message.text', operator: 'contains', value: 'refund' }], any: [] },
      actions: [
        { type: 'ADD_TAGS', params: { tags: ['refund'] } },
        { type: 'SET_PRIORITY', params: { priority: 'HIGH' } },
      ],
      order: 5,
      runCount: 0,
      lastRunAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const flow = (
      await create(s, {
        name: 'Menu',
        kind: 'FLOW',
        active: false,
        trigger: { type: 'KEYWORD', keywords: ['menu'], match: 'EXACT' },
        actions: [{ type: 'SEND_TEXT', params: { text: 'Hi {{contact.name}}' } }],
      }).expect(201)
    ).body;
    expect(flow.conditions).toEqual({ all: [], any: [] });
    const ids = async (q: string) =>
      ((await t.http.get(`/automations${q}`).set(s.headers).expect(200)).body.data as Body[]).map((a) => a.id);
    expect(await ids('')).toEqual([flow.id, rule.id]);
    expect(await ids('?kind=rule')).toEqual([rule.id]);
    expect(await ids('?kind=FLOW')).toEqual([flow.id]);
    expect(await ids('?active=false')).toEqual([flow.id]);
    expect(await ids('?active=true')).toEqual([rule.id]);
    const page = (await t.http.get('/automations?limit=1').set(s.headers).expect(200)).body;
    expect(page.data).toHaveLength(1);
    const next = (await t.http.get(`/automations?limit=1&cursor=${page.nextCursor}`).set(s.headers).expect(200)).body;
    expect(next.data[0].id).toBe(rule.id);

    const replaced = (
      await t.http
        .put(`/automations/${rule.id}`)
        .set(s.headers)
        .send(refundRule({ name: 'Refunds v2', active: false }))
        .expect(200)
    ).body;
    expect(replaced).toMatchObject({ name: 'Refunds v2', active: false, order: 5 });
    expect((await t.http.get(`/automations/${rule.id}`).set(s.headers).expect(200)).body.name).toBe('Refunds v2');
    await t.http.delete(`/automations/${rule.id}`).set(s.headers).expect(204);
    await t.http.get(`/automations/${rule.id}`).set(s.headers).expect(404);
    await t.http.get('/automations/not-a-uuid').set(s.headers).expect(404);
  });

  it('refuses invalid definitions with validation_failed naming the path', async () => {
    const s = await signupWorkspace(t, 'Invalid');
    const other = await signupWorkspace(t, 'Other');
    const otherQueue = (await t.http.get('/queues').set(other.headers).expect(200)).body.data[0].id;
    const myQueue = (await t.http.get('/queues').set(s.headers).expect(200)).body.data[0].id;
    const fieldsOf = async (body: Body) => {
      const res = await create(s, body).expect(400);
      expect(res.body.code).toBe('validation_failed');
      expect(Array.isArray(res.body.details)).toBe(true);
      return (res.body.details as { field: string }[]).map((d) => d.field);
    };
    expect(await fieldsOf(refundRule({ trigger: 'message.sent' }))).toEqual(['trigger']);
    expect(
      await fieldsOf(refundRule({ conditions: { all: [{ field: 'message.color', operator: 'equals', value: 'x' }] } })),
    ).toEqual(['conditions.all[0].field']);
    expect(
      await fieldsOf(refundRule({ conditions: { any: [{ field: 'message.text', operator: 'like', value: 'x' }] } })),
    ).toEqual(['conditions.any[0].operator']);
    expect(
      await fieldsOf(
        refundRule({ conditions: { all: [{ field: 'conversation.priority', operator: 'greater_than', value: 1 }] } }),
      ),
    ).toEqual(['conditions.all[0].operator']);
    expect(
      await fieldsOf(refundRule({ conditions: { all: [{ field: 'message.text', operator: 'in', value: 'refund' }] } })),
    ).toEqual(['conditions.all[0].value']);
    expect(
      await fieldsOf(
        refundRule({
          actions: [
            { type: 'ADD_TAGS', params: { tags: ['a'] } },
            { type: 'SET_PRIORITY', params: { priority: 'HIGH' } },
            { type: 'ASSIGN_QUEUE', params: { queueId: otherQueue } },
          ],
        }),
      ),
    ).toEqual(['actions[2].params.queueId']);
    expect(
      await fieldsOf(refundRule({ actions: [{ type: 'ASSIGN_AGENT', params: { userId: other.userId } }] })),
    ).toEqual(['actions[0].params.userId']);
    expect(await fieldsOf(refundRule({ actions: [{ type: 'SET_PRIORITY', params: { priority: 5 } }] }))).toEqual([
      'actions[0].params.priority',
    ]);
    expect(await fieldsOf(refundRule({ actions: [{ type: 'LAUNCH_ROCKET', params: {} }] }))).toEqual([
      'actions[0].type',
    ]);
    expect(
      await fieldsOf(refundRule({ actions: [{ type: 'SEND_BUTTONS', params: { text: 'x', buttons: [] } }] })),
    ).toEqual(['actions[0].type']);
    const many = Array.from({ length: 51 }, () => ({ field: 'message.text', operator: 'contains', value: 'x' }));
    expect(await fieldsOf(refundRule({ conditions: { all: many } }))).toEqual(['conditions']);
    const actions = Array.from({ length: 51 }, () => ({ type: 'ADD_TAGS', params: { tags: ['x'] } }));
    expect(await fieldsOf(refundRule({ actions }))).toEqual(['actions']);
    // Flows: unknown trigger type, unknown step, button limits, unknown postback payload.
    const flow = (trigger: Body, steps: Body[]) => ({ name: 'F', kind: 'FLOW', trigger, actions: steps });
    expect(await fieldsOf(flow({ type: 'SMOKE' }, [{ type: 'SEND_TEXT', params: { text: 'x' } }]))).toEqual([
      'trigger.type',
    ]);
    expect(
      await fieldsOf(
        flow({ type: 'KEYWORD', keywords: ['menu'], match: 'EXACT' }, [{ type: 'SEND_REPLY', params: { text: 'x' } }]),
      ),
    ).toEqual(['actions[0].type']);
    const fourteen = Array.from({ length: 14 }, (_, i) => ({ title: `B${i}`, payload: `P${i}` }));
    expect(
      await fieldsOf(
        flow({ type: 'KEYWORD', keywords: ['menu'], match: 'EXACT' }, [
          { type: 'SEND_BUTTONS', params: { text: 'Pick', buttons: fourteen } },
        ]),
      ),
    ).toEqual(['actions[0].params.buttons']);
    expect(
      await fieldsOf(
        flow({ type: 'KEYWORD', keywords: ['menu'], match: 'EXACT' }, [
          {
            type: 'SEND_BUTTONS',
            params: { text: 'Pick', buttons: [{ title: 'A title longer than twenty', payload: 'P' }] },
          },
        ]),
      ),
    ).toEqual(['actions[0].params.buttons[0].title']);
    expect(
      await fieldsOf(
        flow({ type: 'POSTBACK', payload: 'NOBODY_SENDS_THIS' }, [{ type: 'SEND_TEXT', params: { text: 'x' } }]),
      ),
    ).toEqual(['trigger.payload']);
    expect(
      await fieldsOf(
        flow({ type: 'KEYWORD', keywords: ['menu'], match: 'SOMETIMES' }, [{ type: 'HANDOFF_AI', params: {} }]),
      ),
    ).toEqual(['trigger.match']);
    // A payload a flow of the workspace offers is accepted, and own queues are fine.
    await create(
      s,
      flow({ type: 'KEYWORD', keywords: ['menu'], match: 'EXACT' }, [
        { type: 'SEND_BUTTONS', params: { text: 'Pick', buttons: [{ title: 'Sizes', payload: 'SIZES' }] } },
      ]),
    ).expect(201);
    await create(
      s,
      flow({ type: 'POSTBACK', payload: 'SIZES' }, [
        { type: 'SEND_TEXT', params: { text: 'S, M, L' } },
        { type: 'ASSIGN_QUEUE', params: { queueId: myQueue } },
      ]),
    ).expect(201);
    await create(s, { ...refundRule(), unknownField: 1 }).expect(400);
  });

  it('POST /automations/:id/test evaluates a sample: conditions with actual values, planned actions, nothing written', async () => {
    const s = await signupWorkspace(t, 'DryRun');
    const rule = (
      await create(s, {
        name: 'VIP refunds',
        kind: 'RULE',
        trigger: 'message.received',
        conditions: {
          all: [
            { field: 'message.text', operator: 'contains', value: 'REFUND' },
            { field: 'contact.customFields.orders', operator: 'greater_than', value: 3 },
          ],
          any: [],
        },
        actions: [
          { type: 'SEND_REPLY', params: { text: 'Hi {{contact.name}}, about {{ticket.key}}{{nope.nothing}}!' } },
          { type: 'ADD_NOTE', params: { text: 'VIP' } },
        ],
      }).expect(201)
    ).body;
    const res = await t.http
      .post(`/automations/${rule.id}/test`)
      .set(s.headers)
      .send({
        sample: {
          message: { text: 'I want a refund please' },
          contact: { name: 'Ada', customFields: { orders: '12' } },
          ticket: { key: 'TCK-7' },
        },
      })
      .expect(200);
    expect(res.body).toEqual({
      matched: true,
      conditions: [
        {
          field: 'message.text',
          operator: 'contains',
          value: 'REFUND',
          actual: 'I want a refund please',
          passed: true,
        },
        { field: 'contact.customFields.orders', operator: 'greater_than', value: 3, actual: '12', passed: true },
      ],
      actions: [
        { type: 'SEND_REPLY', params: { text: 'Hi Ada, about TCK-7!' } },
        { type: 'ADD_NOTE', params: { text: 'VIP' } },
      ],
    });
    const miss = await t.http
      .post(`/automations/${rule.id}/test`)
      .set(s.headers)
      .send({ sample: { message: { text: 'hello' }, contact: { customFields: { orders: 2 } } } })
      .expect(200);
    expect(miss.body.matched).toBe(false);
    expect(miss.body.actions).toEqual([]);
    expect(miss.body.conditions.map((c: Body) => c.passed)).toEqual([false, false]);
    // Nothing at all was written: no run, no message, note, ticket; runCount unchanged.
    const [counts] = await sql<Record<string, number>>(
      t,
      `SELECT (SELECT count(*)::int FROM automation_runs WHERE workspace_id = $1) AS runs,
              (SELECT count(*)::int FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.workspace_id = $1) AS messages,
              (SELECT count(*)::int FROM conversation_notes WHERE workspace_id = $1) AS notes,
              (SELECT count(*)::int FROM tickets WHERE workspace_id = $1) AS tickets`,
      [s.workspaceId],
    );
    expect(counts).toEqual({ runs: 0, messages: 0, notes: 0, tickets: 0 });
    expect((await t.http.get(`/automations/${rule.id}`).set(s.headers).expect(200)).body.runCount).toBe(0);
    await t.http.post(`/automations/${rule.id}/test`).set(s.headers).send({}).expect(400);
  });

  it('every operator and field kind, through /test', async () => {
    const s = await signupWorkspace(t, 'Operators');
    const check = async (field: string, operator: string, value: unknown, sample: Body, expected: boolean) => {
      const rule = (
        await create(s, {
          name: `${field} ${operator}`,
          kind: 'RULE',
          trigger: field.startsWith('ticket.') ? 'ticket.updated' : 'message.received',
          conditions: { all: [{ field, operator, ...(value === undefined ? {} : { value }) }] },
          actions: [{ type: 'ADD_TAGS', params: { tags: ['x'] } }],
        }).expect(201)
      ).body;
      const res = await t.http.post(`/automations/${rule.id}/test`).set(s.headers).send({ sample }).expect(200);
      expect({ field, operator, value, matched: res.body.matched }).toEqual({
        field,
        operator,
        value,
        matched: expected,
      });
    };
    const msg = (text: string) => ({ message: { text } });
    await check('message.text', 'equals', 'HELLO', msg('hello'), true);
    await check('message.text', 'not_equals', 'hello', msg('Hello'), false);
    await check('message.text', 'contains', 'Refund', msg('need a REFUND now'), true);
    await check('message.text', 'not_contains', 'refund', msg('all good'), true);
    await check('message.text', 'starts_with', 'hi', msg('Hi there'), true);
    await check('message.text', 'starts_with', 'there', msg('Hi there'), false);
    await check('message.text', 'in', ['yes', 'OK'], msg('ok'), true);
    await check('message.text', 'not_in', ['yes', 'ok'], msg('no'), true);
    await check('message.text', 'is_set', undefined, msg('x'), true);
    await check('message.text', 'is_not_set', undefined, { message: { text: '' } }, true);
    await check('conversation.priority', 'equals', 'high', { conversation: { priority: 'HIGH' } }, true);
    await check('conversation.priority', 'in', ['LOW', 'MEDIUM'], { conversation: { priority: 'HIGH' } }, false);
    await check('conversation.tags', 'contains', 'VIP', { conversation: { tags: ['vip', 'new'] } }, true);
    await check('conversation.tags', 'not_contains', 'vip', { conversation: { tags: ['new'] } }, true);
    await check('conversation.tags', 'is_not_set', undefined, { conversation: { tags: [] } }, true);
    await check(
      'conversation.createdAt',
      'greater_than',
      '2026-01-01T00:00:00Z',
      { conversation: { createdAt: '2026-11-20T10:00:00.000Z' } },
      true,
    );
    await check(
      'conversation.createdAt',
      'less_than',
      '2026-01-01T00:00:00Z',
      { conversation: { createdAt: '2026-11-20T10:00:00.000Z' } },
      false,
    );
    // Numbers compare as numbers (10 > 9, which text comparison would get wrong); dates as dates.
    await check('contact.customFields.orders', 'greater_than', 9, { contact: { customFields: { orders: 10 } } }, true);
    await check('contact.customFields.orders', 'less_than', 9, { contact: { customFields: { orders: '10' } } }, false);
    await check('contact.customFields.orders', 'equals', 10, { contact: { customFields: { orders: '10.0' } } }, true);
    await check(
      'contact.customFields.renewal',
      'less_than',
      '2027-01-01',
      { contact: { customFields: { renewal: '2026-12-31' } } },
      true,
    );
    await check('contact.customFields.plan', 'equals', 'GOLD', { contact: { customFields: { plan: 'gold' } } }, true);
    await check('contact.customFields.plan', 'is_not_set', undefined, { contact: { customFields: {} } }, true);
    await check('contact.email', 'contains', '@example.com', { contact: { email: 'ADA@EXAMPLE.COM' } }, true);
    await check('ticket.status', 'not_equals', 'OPEN', { ticket: { status: 'WAITING' } }, true);
    await check(
      'ticket.dueAt',
      'less_than',
      '2026-12-01T00:00:00Z',
      { ticket: { dueAt: '2026-11-30T00:00:00.000Z' } },
      true,
    );
  });

  it('needs automations.manage; another workspace sees none of it', async () => {
    const s = await signupWorkspace(t, 'Perms');
    const rule = (await create(s, refundRule()).expect(201)).body;
    const agent = await addMember(t, s, 'AGENT');
    await t.http.get('/automations').set(agent.headers).expect(403);
    await t.http.get('/automations/meta').set(agent.headers).expect(403);
    await t.http.get('/automations/runs').set(agent.headers).expect(403);
    await create(agent, refundRule()).expect(403);
    await t.http.post(`/automations/${rule.id}/test`).set(agent.headers).send({ sample: {} }).expect(403);
    const supervisor = await addMember(t, s, 'SUPERVISOR');
    await t.http.get(`/automations/${rule.id}`).set(supervisor.headers).expect(200);
    await t.http.get('/automations').expect(401);

    const other = await signupWorkspace(t, 'Elsewhere');
    await t.http.get(`/automations/${rule.id}`).set(other.headers).expect(404);
    await t.http.put(`/automations/${rule.id}`).set(other.headers).send(refundRule()).expect(404);
    await t.http.delete(`/automations/${rule.id}`).set(other.headers).expect(404);
    await t.http.post(`/automations/${rule.id}/test`).set(other.headers).send({ sample: {} }).expect(404);
    expect((await t.http.get('/automations').set(other.headers).expect(200)).body.data).toEqual([]);
    expect(
      (await t.http.get(`/automations/runs?automationId=${rule.id}`).set(other.headers).expect(200)).body.data,
    ).toEqual([]);
  });
});
