import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type DomainEvent, EventBus } from 'src/core/events/event-bus';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { addMember } from '../../utils/sessions';
import { connectCustom, inboxEnv, onlineAgent, sql } from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';
import { type Conversation, contactOn, enterprise, getConversation, inbound, listIds } from './conversation-helpers';

const MINUTE = 60_000;

describe('conversation workflow: arrival to wrap-up through the API', () => {
  let t: TestApp;
  let mock: MockPlatform;
  const events: DomainEvent[] = [];
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock) });
    t.app.get(EventBus).subscribe('*', (e) => {
      events.push(e);
    });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  it('works a real inbound conversation: assigned, ticket, reply delivered, first response, hold, resume, wrap-up, ticket resolved, next one assigned', async () => {
    const admin = await enterprise(t);
    const agent = await onlineAgent(t, admin);
    await t.http
      .put('/queues/capacity')
      .set(admin.headers)
      .send({ agents: [{ userId: agent.userId, maxConversations: 1 }] })
      .expect(200);
    await t.http.put('/tickets/settings').set(admin.headers).send({ resolveWithConversation: true }).expect(200);
    await t.http
      .post('/sla/policies')
      .set(admin.headers)
      .send({ name: 'All', firstResponseMinutes: 30, resolutionMinutes: 240 })
      .expect(201);
    const channel = await connectCustom(t, admin, mock);

    // Arrival: contact + conversation assigned to the only ONLINE agent + automatic ticket + SLA due times.
    const c1 = await inbound(t, admin, channel, {
      senderId: 'cust-1',
      senderName: 'Ada Customer',
      text: 'Where is my parcel?',
    });
    const arrived = await getConversation(t, agent, c1);
    expect(arrived).toMatchObject({ status: 'OPEN', assigneeId: agent.userId, firstResponseAt: null, notes: [] });
    const createdAt = Date.parse(arrived.createdAt as string);
    expect(arrived.firstResponseDueAt).toBe(new Date(createdAt + 30 * MINUTE).toISOString());
    expect(arrived.resolutionDueAt).toBe(new Date(createdAt + 240 * MINUTE).toISOString());
    const tickets = (await t.http.get(`/tickets?conversationId=${c1}`).set(admin.headers).expect(200)).body.data;
    expect(tickets).toHaveLength(1);
    expect(tickets[0]).toMatchObject({ status: 'OPEN', assigneeId: agent.userId, source: 'CONVERSATION' });

    // A second customer: the agent is at capacity (1), so it waits unassigned in the queue.
    const c2 = await inbound(t, admin, channel, { senderId: 'cust-2', senderName: 'Bob Customer', text: 'Hello?' });
    expect((await getConversation(t, admin, c2)).assigneeId).toBeNull();
    expect((await listIds(t, agent)).sort()).toEqual([c1, c2].sort());

    // Reply: stored PENDING, delivered to the mock outbound URL, stamps firstResponseAt.
    const reply = await t.http
      .post(`/conversations/${c1}/messages`)
      .set(agent.headers)
      .send({ text: 'It ships tomorrow.' })
      .expect(201);
    await eventually(async () => {
      expect(mock.requests.some((r) => r.path === '/custom/outbound' && r.raw.includes('It ships tomorrow.'))).toBe(
        true,
      );
    });
    const answered = await getConversation(t, agent, c1);
    expect(answered.firstResponseAt).toBe(reply.body.createdAt);
    expect(answered.lastMessageAt).toBe(reply.body.createdAt);
    // A second reply moves the last message, not the first response; both are delivered, in order.
    const second = await t.http
      .post(`/conversations/${c1}/messages`)
      .set(agent.headers)
      .send({ text: 'Tracking link follows.' })
      .expect(201);
    await eventually(async () => {
      const sent = mock.requests.filter((r) => r.path === '/custom/outbound').map((r) => r.raw);
      const first = sent.findIndex((raw) => raw.includes('It ships tomorrow.'));
      expect(first).toBeGreaterThanOrEqual(0);
      expect(sent.findIndex((raw) => raw.includes('Tracking link follows.'))).toBeGreaterThan(first);
    });
    const answeredTwice = await getConversation(t, agent, c1);
    expect(answeredTwice.firstResponseAt).toBe(reply.body.createdAt);
    expect(answeredTwice.lastMessageAt).toBe(second.body.createdAt);
    expect(answeredTwice.lastMessagePreview).toBe('Tracking link follows.');

    // A note: shown with the conversation, never sent to the customer.
    const note = await t.http
      .post(`/conversations/${c1}/notes`)
      .set(agent.headers)
      .send({ text: 'VIP, be nice' })
      .expect(201);
    expect(note.body).toEqual({
      id: expect.any(String),
      authorId: agent.userId,
      text: 'VIP, be nice',
      createdAt: expect.any(String),
    });
    expect((await getConversation(t, agent, c1)).notes).toEqual([note.body]);
    expect(mock.requests.some((r) => r.raw.includes('VIP, be nice'))).toBe(false);

    // Hold → resume, with the 409s of the wrong direction.
    await t.http.post(`/conversations/${c1}/resume`).set(agent.headers).send({}).expect(409);
    const held = await t.http
      .post(`/conversations/${c1}/hold`)
      .set(agent.headers)
      .send({ reason: 'Waiting for the warehouse' })
      .expect(200);
    expect(held.body).toMatchObject({ status: 'ON_HOLD', onHoldReason: 'Waiting for the warehouse' });
    const again = await t.http.post(`/conversations/${c1}/hold`).set(agent.headers).send({}).expect(409);
    expect(again.body.code).toBe('invalid_transition');
    const resumed = await t.http.post(`/conversations/${c1}/resume`).set(agent.headers).expect(200);
    expect(resumed.body).toMatchObject({ status: 'OPEN', onHoldReason: null });

    // Wrap-up from ON_HOLD: stored, stamped, ticket resolved, the freed seat takes the waiting conversation.
    await t.http.post(`/conversations/${c1}/hold`).set(agent.headers).send({}).expect(200);
    const done = await t.http
      .post(`/conversations/${c1}/wrap-up`)
      .set(agent.headers)
      .send({ outcome: 'solved', note: 'Parcel located' })
      .expect(200);
    expect(done.body).toMatchObject({
      status: 'RESOLVED',
      wrapUp: { outcome: 'solved', note: 'Parcel located' },
      onHoldReason: null,
      resolvedAt: expect.any(String),
    });
    await eventually(async () => {
      const [ticket] = (await t.http.get(`/tickets?conversationId=${c1}`).set(admin.headers).expect(200)).body.data;
      expect(ticket).toMatchObject({ status: 'RESOLVED', resolvedAt: expect.any(String) });
    });
    await eventually(async () => expect((await getConversation(t, admin, c2)).assigneeId).toBe(agent.userId));
    const resolvedEvent = events.find((e) => e.name === 'conversation.resolved' && e.data.conversationId === c1);
    expect((resolvedEvent?.data.conversation as Conversation).status).toBe('RESOLVED');
    expect(
      events.some((e) => e.name === 'conversation.updated' && e.data.conversationId === c1 && e.data.change === 'held'),
    ).toBe(true);

    // RESOLVED is final.
    for (const action of ['hold', 'resume', 'wrap-up']) {
      const res = await t.http.post(`/conversations/${c1}/${action}`).set(agent.headers).send({}).expect(409);
      expect(res.body.code).toBe('invalid_transition');
    }
    // …and the customer writing again opens a new conversation.
    const c3 = await inbound(t, admin, channel, { senderId: 'cust-1', text: 'One more thing' });
    expect(c3).not.toBe(c1);
    expect((await getConversation(t, admin, c1)).status).toBe('RESOLVED');
    expect((await getConversation(t, admin, c3)).status).toBe('OPEN');

    // SLA figures: c1 answered and resolved in time; c2 and c3 pending.
    const summary = (await t.http.get('/sla/summary').set(admin.headers).expect(200)).body;
    expect(summary.conversations).toBe(3);
    expect(summary.firstResponse).toMatchObject({ met: 1, breached: 0, pending: 2 });
    expect(summary.resolution).toMatchObject({ met: 1, breached: 0, pending: 2 });
  });

  it('starts a conversation from our side: first outbound message delivered, SLA applied, routed by the queue; 409 when one is open', async () => {
    const admin = await enterprise(t);
    const agent = await onlineAgent(t, admin);
    await t.http
      .post('/sla/policies')
      .set(admin.headers)
      .send({ name: 'Urgent', conditions: { priorities: ['URGENT'] }, firstResponseMinutes: 5, resolutionMinutes: 60 })
      .expect(201);
    const channel = await connectCustom(t, admin, mock);
    const contact = await contactOn(t, admin, channel.id, 'ext-42', 'Grace Hopper');

    const res = await t.http
      .post('/conversations')
      .set(admin.headers)
      .send({
        contactId: contact.id,
        channelId: channel.id,
        text: 'Your order is ready',
        priority: 'urgent',
        subject: 'Order ready',
      })
      .expect(201);
    const c = res.body;
    expect(c).toMatchObject({
      contactId: contact.id,
      contact: { id: contact.id, name: 'Grace Hopper' },
      channelId: channel.id,
      channelType: 'CUSTOM',
      status: 'OPEN',
      priority: 'URGENT',
      subject: 'Order ready',
      assigneeId: agent.userId,
      lastMessagePreview: 'Your order is ready',
      notes: [],
    });
    expect(c.messages).toHaveLength(1);
    expect(c.messages[0]).toMatchObject({ direction: 'OUTBOUND', senderType: 'AGENT', text: 'Your order is ready' });
    expect(c.firstResponseAt).toBe(c.messages[0].createdAt);
    const createdAt = Date.parse(c.createdAt);
    expect(c.firstResponseDueAt).toBe(new Date(createdAt + 5 * MINUTE).toISOString());
    expect(c.resolutionDueAt).toBe(new Date(createdAt + 60 * MINUTE).toISOString());
    await eventually(async () => {
      const sent = mock.requests.find((r) => r.path === '/custom/outbound' && r.raw.includes('Your order is ready'));
      expect(sent).toBeDefined();
      expect(sent!.raw).toContain('ext-42');
    });
    expect(
      events.some((e) => e.name === 'conversation.created' && (e.data.conversation as Conversation).id === c.id),
    ).toBe(true);

    // One open conversation per contact and channel.
    const dup = await t.http
      .post('/conversations')
      .set(admin.headers)
      .send({ contactId: contact.id, channelId: channel.id })
      .expect(409);
    expect(dup.body.code).toBe('conflict');
    // The customer's answer joins it.
    const joined = await inbound(t, admin, channel, { senderId: 'ext-42', text: 'Thanks!' });
    expect(joined).toBe(c.id);

    // Without text: no message, unassigned in a MANUAL queue.
    const manual = await t.http
      .post('/queues')
      .set(admin.headers)
      .send({ name: 'Manual', strategy: 'MANUAL', memberIds: [agent.userId] })
      .expect(201);
    const other = await contactOn(t, admin, channel.id, 'ext-43', 'Alan');
    const quiet = await t.http
      .post('/conversations')
      .set(admin.headers)
      .send({ contactId: other.id, channelId: channel.id, queueId: manual.body.id })
      .expect(201);
    expect(quiet.body).toMatchObject({
      queueId: manual.body.id,
      assigneeId: null,
      messages: [],
      priority: 'MEDIUM',
      firstResponseAt: null,
    });
    expect(quiet.body.lastMessageAt).toEqual(expect.any(String));

    // Bad references.
    const stranger = await t.http.post('/contacts').set(admin.headers).send({ name: 'No identity' }).expect(201);
    const noIdentity = await t.http
      .post('/conversations')
      .set(admin.headers)
      .send({ contactId: stranger.body.id, channelId: channel.id })
      .expect(400);
    expect(noIdentity.body.details[0].field).toBe('contactId');
    const unknown = '00000000-0000-4000-8000-000000000000';
    await t.http
      .post('/conversations')
      .set(admin.headers)
      .send({ contactId: unknown, channelId: channel.id })
      .expect(404);
    await t.http
      .post('/conversations')
      .set(admin.headers)
      .send({ contactId: contact.id, channelId: unknown })
      .expect(404);
    await t.http
      .post('/conversations')
      .set(admin.headers)
      .send({ contactId: other.id, channelId: channel.id, queueId: unknown })
      .expect(409); // other already has the MANUAL one open
    const third = await contactOn(t, admin, channel.id, 'ext-44', 'Third');
    await t.http
      .post('/conversations')
      .set(admin.headers)
      .send({ contactId: third.id, channelId: channel.id, queueId: unknown })
      .expect(404);
    await t.http
      .post('/conversations')
      .set(admin.headers)
      .send({ contactId: third.id, channelId: channel.id, foo: 1 })
      .expect(400);
    await t.http
      .post('/conversations')
      .set(admin.headers)
      .send({ contactId: third.id, channelId: channel.id, priority: 'NOPE' })
      .expect(400);
    await t.http
      .post('/conversations')
      .set(admin.headers)
      .send({ contactId: 'nope', channelId: channel.id })
      .expect(400);
  });

  it('edits priority, tags and subject; assigns, reassigns, unassigns and moves queues', async () => {
    const admin = await enterprise(t);
    const a1 = await addMember(t, admin, 'AGENT');
    const a2 = await addMember(t, admin, 'AGENT');
    const channel = await connectCustom(t, admin, mock);
    const id = await inbound(t, admin, channel, { senderId: 'edit-1', text: 'Hi' });

    const edited = await t.http
      .put(`/conversations/${id}`)
      .set(admin.headers)
      .send({ priority: 'high', tags: [' VIP ', 'vip', 'Billing'], subject: 'Refund' })
      .expect(200);
    expect(edited.body).toMatchObject({ priority: 'HIGH', tags: ['vip', 'billing'], subject: 'Refund' });
    expect(
      (await t.http.put(`/conversations/${id}`).set(admin.headers).send({ subject: null }).expect(200)).body.subject,
    ).toBeNull();
    await t.http.put(`/conversations/${id}`).set(admin.headers).send({ priority: 'SOON' }).expect(400);
    await t.http.put(`/conversations/${id}`).set(admin.headers).send({ status: 'RESOLVED' }).expect(400);
    await t.http.put(`/conversations/${id}`).set(admin.headers).send({ tags: 'vip' }).expect(400);

    const assigned = await t.http
      .put(`/conversations/${id}/assign`)
      .set(admin.headers)
      .send({ assigneeId: a1.userId })
      .expect(200);
    expect(assigned.body.assigneeId).toBe(a1.userId);
    const agentView = await t.http
      .put(`/conversations/${id}/assign`)
      .set(a1.headers)
      .send({ assigneeId: a2.userId })
      .expect(403);
    expect(agentView.body.code).toBe('forbidden');
    const queue = await t.http
      .post('/queues')
      .set(admin.headers)
      .send({ name: 'Billing', strategy: 'MANUAL' })
      .expect(201);
    const moved = await t.http
      .put(`/conversations/${id}/assign`)
      .set(admin.headers)
      .send({ assigneeId: a2.userId, queueId: queue.body.id })
      .expect(200);
    expect(moved.body).toMatchObject({ assigneeId: a2.userId, queueId: queue.body.id });
    const unassigned = await t.http
      .put(`/conversations/${id}/assign`)
      .set(admin.headers)
      .send({ assigneeId: null })
      .expect(200);
    expect(unassigned.body).toMatchObject({ assigneeId: null, queueId: queue.body.id });

    // A member of another workspace, an unknown queue, nothing at all, bad ids.
    const elsewhere = await enterprise(t);
    const missing = await t.http
      .put(`/conversations/${id}/assign`)
      .set(admin.headers)
      .send({ assigneeId: elsewhere.userId })
      .expect(404);
    expect(missing.body.message).toContain('Assignee');
    const [otherQueue] = await sql<{ id: string }>(t, 'SELECT id FROM queues WHERE workspace_id = $1', [
      elsewhere.workspaceId,
    ]);
    await t.http.put(`/conversations/${id}/assign`).set(admin.headers).send({ queueId: otherQueue!.id }).expect(404);
    await t.http.put(`/conversations/${id}/assign`).set(admin.headers).send({}).expect(400);
    await t.http.put(`/conversations/${id}/assign`).set(admin.headers).send({ assigneeId: 'me' }).expect(400);
    await t.http.put('/conversations/not-a-uuid/assign').set(admin.headers).send({ assigneeId: a1.userId }).expect(404);

    // Resolved: no reassignment.
    await t.http.post(`/conversations/${id}/wrap-up`).set(admin.headers).send({}).expect(200);
    const late = await t.http
      .put(`/conversations/${id}/assign`)
      .set(admin.headers)
      .send({ assigneeId: a1.userId })
      .expect(409);
    expect(late.body.code).toBe('invalid_transition');
    expect((await getConversation(t, admin, id)).wrapUp).toEqual({ outcome: null, note: null });
  });

  it('AGENT visibility: theirs and unassigned ones in their queues, in the list, the detail and every action', async () => {
    const admin = await enterprise(t);
    const me = await addMember(t, admin, 'AGENT');
    const other = await addMember(t, admin, 'AGENT');
    const channel = await connectCustom(t, admin, mock);
    const secret = await t.http
      .post('/queues')
      .set(admin.headers)
      .send({ name: 'VIP', strategy: 'MANUAL', memberIds: [other.userId] })
      .expect(201);
    // Nobody ONLINE: all wait unassigned in the default queue (both agents are members).
    const mine = await inbound(t, admin, channel, { senderId: 'v-1', text: 'a' });
    const theirs = await inbound(t, admin, channel, { senderId: 'v-2', text: 'b' });
    const waiting = await inbound(t, admin, channel, { senderId: 'v-3', text: 'c' });
    const otherQueue = await inbound(t, admin, channel, { senderId: 'v-4', text: 'd' });
    await t.http.put(`/conversations/${mine}/assign`).set(admin.headers).send({ assigneeId: me.userId }).expect(200);
    await t.http
      .put(`/conversations/${theirs}/assign`)
      .set(admin.headers)
      .send({ assigneeId: other.userId })
      .expect(200);
    await t.http
      .put(`/conversations/${otherQueue}/assign`)
      .set(admin.headers)
      .send({ queueId: secret.body.id })
      .expect(200);

    expect((await listIds(t, me)).sort()).toEqual([mine, waiting].sort());
    expect((await listIds(t, other)).sort()).toEqual([theirs, waiting, otherQueue].sort());
    expect((await listIds(t, admin)).sort()).toEqual([mine, theirs, waiting, otherQueue].sort());
    expect(await listIds(t, me, 'assigneeId=me')).toEqual([mine]);
    expect(await listIds(t, me, 'assigneeId=unassigned')).toEqual([waiting]);

    for (const hidden of [theirs, otherQueue]) {
      await t.http.get(`/conversations/${hidden}`).set(me.headers).expect(404);
      await t.http.put(`/conversations/${hidden}`).set(me.headers).send({ priority: 'LOW' }).expect(404);
      await t.http.post(`/conversations/${hidden}/hold`).set(me.headers).send({}).expect(404);
      await t.http.post(`/conversations/${hidden}/resume`).set(me.headers).send({}).expect(404);
      await t.http.post(`/conversations/${hidden}/wrap-up`).set(me.headers).send({}).expect(404);
      await t.http.post(`/conversations/${hidden}/notes`).set(me.headers).send({ text: 'x' }).expect(404);
      await t.http.post(`/conversations/${hidden}/messages`).set(me.headers).send({ text: 'x' }).expect(404);
    }
    await t.http.get(`/conversations/${waiting}`).set(me.headers).expect(200);
    await t.http.post(`/conversations/${mine}/hold`).set(me.headers).send({}).expect(200);

    // conversations.view_all granted to AGENT: everything.
    const matrix = (await t.http.get('/permissions').set(admin.headers).expect(200)).body.matrix;
    await t.http
      .put('/permissions')
      .set(admin.headers)
      .send({ matrix: { AGENT: [...matrix.AGENT, 'conversations.view_all'] } })
      .expect(200);
    expect((await listIds(t, me)).sort()).toEqual([mine, theirs, waiting, otherQueue].sort());
  });

  it('views: personal for the creator, shared for everyone; permissions to create and delete; viewId applies filters, query overrides', async () => {
    const admin = await enterprise(t);
    const agent = await addMember(t, admin, 'AGENT');
    const agent2 = await addMember(t, admin, 'AGENT');
    const channel = await connectCustom(t, admin, mock);
    const high = await inbound(t, admin, channel, { senderId: 'w-1', text: 'refund please' });
    const low = await inbound(t, admin, channel, { senderId: 'w-2', text: 'hello' });
    await t.http
      .put(`/conversations/${high}`)
      .set(admin.headers)
      .send({ priority: 'HIGH', tags: ['refund'] })
      .expect(200);
    await t.http.put(`/conversations/${low}`).set(admin.headers).send({ priority: 'LOW' }).expect(200);

    const personal = await t.http
      .post('/conversations/views')
      .set(agent.headers)
      .send({ name: 'My high ones', filters: { priority: 'high,urgent', status: ['open'] } })
      .expect(201);
    expect(personal.body).toEqual({
      id: expect.any(String),
      name: 'My high ones',
      filters: { priority: ['HIGH', 'URGENT'], status: ['OPEN'] },
      shared: false,
      createdBy: agent.userId,
      createdAt: expect.any(String),
    });
    const denied = await t.http
      .post('/conversations/views')
      .set(agent.headers)
      .send({ name: 'Team', filters: {}, shared: true })
      .expect(403);
    expect(denied.body.code).toBe('forbidden');
    const shared = await t.http
      .post('/conversations/views')
      .set(admin.headers)
      .send({ name: 'Refunds', filters: { tag: 'Refund', search: 'refund', assigneeId: 'unassigned' }, shared: true })
      .expect(201);
    await t.http
      .post('/conversations/views')
      .set(agent.headers)
      .send({ name: 'x', filters: { color: 'red' } })
      .expect(400);
    await t.http
      .post('/conversations/views')
      .set(agent.headers)
      .send({ name: 'x', filters: { status: 'DONE' } })
      .expect(400);
    await t.http.post('/conversations/views').set(agent.headers).send({ name: '', filters: {} }).expect(400);

    const names = async (s: typeof agent): Promise<string[]> =>
      (await t.http.get('/conversations/views').set(s.headers).expect(200)).body.data
        .map((v: { name: string }) => v.name)
        .sort();
    expect(await names(agent)).toEqual(['My high ones', 'Refunds']);
    expect(await names(agent2)).toEqual(['Refunds']);
    expect(await names(admin)).toEqual(['Refunds']);

    expect(await listIds(t, agent, `viewId=${personal.body.id}`)).toEqual([high]);
    expect(await listIds(t, agent, `viewId=${personal.body.id}&priority=low`)).toEqual([low]);
    expect(await listIds(t, admin, `viewId=${shared.body.id}`)).toEqual([high]);
    await t.http.get(`/conversations?viewId=${personal.body.id}`).set(agent2.headers).expect(404);
    await t.http.get('/conversations?viewId=nope').set(agent.headers).expect(404);

    // Deleting: someone else's personal view is invisible (404); a shared one needs conversations.views.
    await t.http.delete(`/conversations/views/${personal.body.id}`).set(agent2.headers).expect(404);
    await t.http.delete(`/conversations/views/${shared.body.id}`).set(agent.headers).expect(403);
    await t.http.delete(`/conversations/views/${personal.body.id}`).set(agent.headers).expect(204);
    await t.http.delete(`/conversations/views/${shared.body.id}`).set(admin.headers).expect(204);
    await t.http.delete(`/conversations/views/${shared.body.id}`).set(admin.headers).expect(404);
    await t.http.delete('/conversations/views/not-a-uuid').set(admin.headers).expect(404);
    expect(await names(agent)).toEqual([]);
  });

  it('isolates workspaces: conversations, notes and views of A are 404 / absent from B', async () => {
    const a = await enterprise(t);
    const b = await enterprise(t);
    const channel = await connectCustom(t, a, mock);
    const id = await inbound(t, a, channel, { senderId: 'iso-1', text: 'secret words' });
    await t.http.post(`/conversations/${id}/notes`).set(a.headers).send({ text: 'internal' }).expect(201);
    const view = await t.http
      .post('/conversations/views')
      .set(a.headers)
      .send({ name: 'A shared', filters: {}, shared: true })
      .expect(201);

    expect(await listIds(t, b)).toEqual([]);
    expect(await listIds(t, b, 'search=secret')).toEqual([]);
    await t.http.get(`/conversations/${id}`).set(b.headers).expect(404);
    await t.http.put(`/conversations/${id}`).set(b.headers).send({ priority: 'LOW' }).expect(404);
    await t.http.put(`/conversations/${id}/assign`).set(b.headers).send({ assigneeId: b.userId }).expect(404);
    for (const action of ['hold', 'resume', 'wrap-up']) {
      await t.http.post(`/conversations/${id}/${action}`).set(b.headers).send({}).expect(404);
    }
    await t.http.post(`/conversations/${id}/notes`).set(b.headers).send({ text: 'x' }).expect(404);
    await t.http.post(`/conversations/${id}/messages`).set(b.headers).send({ text: 'x' }).expect(404);
    expect((await t.http.get('/conversations/views').set(b.headers).expect(200)).body.data).toEqual([]);
    await t.http.get(`/conversations?viewId=${view.body.id}`).set(b.headers).expect(404);
    await t.http.delete(`/conversations/views/${view.body.id}`).set(b.headers).expect(404);
    // B cannot start a conversation with A's contact or on A's channel.
    const [contact] = await sql<{ contact_id: string }>(t, 'SELECT contact_id FROM conversations WHERE id = $1', [id]);
    const bChannel = await connectCustom(t, b, mock);
    await t.http
      .post('/conversations')
      .set(b.headers)
      .send({ contactId: contact!.contact_id, channelId: bChannel.id })
      .expect(404);
    // Nothing changed in A.
    const still = await getConversation(t, a, id);
    expect(still).toMatchObject({ status: 'OPEN', priority: 'MEDIUM', assigneeId: null });
    expect((still.notes as unknown[]).length).toBe(1);
  });

  it('never answers bad input with a 5xx', async () => {
    const admin = await enterprise(t);
    await t.http.get('/conversations/not-a-uuid').set(admin.headers).expect(404);
    await t.http.post('/conversations/not-a-uuid/hold').set(admin.headers).send({}).expect(404);
    await t.http.put('/conversations/not-a-uuid').set(admin.headers).send({}).expect(404);
    await t.http
      .post('/conversations/00000000-0000-4000-8000-000000000000/wrap-up')
      .set(admin.headers)
      .send({})
      .expect(404);
    for (const query of [
      'status=CLOSED',
      'priority=whatever',
      'assigneeId=someone',
      'queueId=nope',
      'channelId=1',
      'contactId=x',
      'from=yesterday',
      'limit=0',
      'limit=101',
      'cursor=%%%',
      'unknown=1',
      'from=2030-01-01T00:00:00Z&to=2020-01-01T00:00:00Z',
    ]) {
      const res = await t.http.get(`/conversations?${query}`).set(admin.headers);
      expect([query, res.status]).toEqual([query, 400]);
    }
    const token = (await t.http.post('/developer/tokens').set(admin.headers).send({ name: 'x' }).expect(201)).body
      .token;
    await t.http
      .get('/conversations?assigneeId=me')
      .set({ authorization: `Bearer ${token}` })
      .expect(400);
    await t.http
      .post('/conversations/views')
      .set({ authorization: `Bearer ${token}` })
      .send({ name: 'p', filters: {} })
      .expect(400);
    await t.http
      .post('/conversations')
      .set(admin.headers)
      .set('content-type', 'application/json')
      .send('{"contactId":')
      .expect(400);
    await t.http.get('/conversations').expect(401);
  });
});
