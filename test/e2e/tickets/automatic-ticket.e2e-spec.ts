import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type DomainEvent, EventBus } from 'src/core/events/event-bus';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { AutomaticTicketsService } from 'src/modules/tickets';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, addMember, setPlan, signupWorkspace } from '../../utils/sessions';
import {
  type CustomChannel,
  connectCustom,
  conversationOfMessage,
  eventReaches,
  inboxEnv,
  onlineAgent,
  postCustom,
  sql,
} from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';

type Ticket = Record<string, unknown> & { id: string; key: string };

describe('the automatic ticket: real inbound messages, settings, resolveWithConversation, contact merge', () => {
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

  async function enterprise(): Promise<Session> {
    const admin = await signupWorkspace(t, 'Enterprise');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
    return admin;
  }

  /** Sends a signed Custom Channel message and waits until the pipeline processed it; returns its conversation. */
  async function inbound(admin: Session, channel: CustomChannel, message: Record<string, unknown>): Promise<string> {
    const ack = await postCustom(t, channel, message).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    expect(event.outcome).toBe('MESSAGE_STORED');
    return conversationOfMessage(t, event.messageId as string);
  }

  async function ticketsOf(s: Session, conversationId: string): Promise<Ticket[]> {
    const res = await t.http.get(`/tickets?conversationId=${conversationId}`).set(s.headers).expect(200);
    return res.body.data;
  }

  it('creates one ticket for a new conversation from a signed inbound message, and none for the next message', async () => {
    const admin = await enterprise();
    const agent = await onlineAgent(t, admin);
    const channel = await connectCustom(t, admin, mock);
    const text = `My order #1234 never arrived and I have been waiting for three weeks now, please help me out here`;
    const conversationId = await inbound(admin, channel, { senderId: 'ada-1', senderName: 'Ada Lovelace', text });

    const conversation = (await t.http.get(`/conversations/${conversationId}`).set(admin.headers).expect(200)).body;
    const [ticket, ...others] = await ticketsOf(admin, conversationId);
    expect(others).toEqual([]);
    expect(ticket).toEqual({
      id: expect.any(String),
      key: 'TCK-1',
      subject: `${text.slice(0, 79).trimEnd()}…`,
      description: text,
      status: 'OPEN',
      priority: 'MEDIUM',
      assigneeId: agent.userId,
      queueId: conversation.queueId,
      contactId: conversation.contactId,
      conversationId,
      tags: [],
      dueAt: null,
      resolvedAt: null,
      source: 'CONVERSATION',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((ticket!.subject as string).length).toBe(80);
    expect(conversation.queueId).toEqual(expect.any(String));
    const created = events.filter((e) => e.name === 'ticket.created' && e.workspaceId === admin.workspaceId);
    expect(created.map((e) => (e.data.ticket as Ticket).id)).toEqual([ticket!.id]);

    // The same sender again: same open conversation, no second ticket.
    const again = await inbound(admin, channel, { senderId: 'ada-1', text: 'Any news?' });
    expect(again).toBe(conversationId);
    expect(await ticketsOf(admin, conversationId)).toHaveLength(1);
    // A redelivery of a message (same messageId) creates nothing either.
    const first = await postCustom(t, channel, { senderId: 'bob-1', text: 'Hello', messageId: 'm-1' }).expect(200);
    await eventReaches(t, admin, channel.id, first.body.eventId);
    const dup = await postCustom(t, channel, { senderId: 'bob-1', text: 'Hello', messageId: 'm-1' }).expect(200);
    const dupEvent = await eventReaches(t, admin, channel.id, dup.body.eventId);
    expect(dupEvent.outcome).toBe('DUPLICATE');
    const all = await t.http.get('/tickets').set(admin.headers).expect(200);
    expect(all.body.data.map((x: Ticket) => x.key).sort()).toEqual(['TCK-1', 'TCK-2']);

    // The stage itself is idempotent: run again for the same conversation, it creates nothing.
    const stage = t.app.get(AutomaticTicketsService);
    const rerun = await runAsWorkspace(admin.workspaceId, () =>
      stage.createForConversation({
        workspaceId: admin.workspaceId,
        eventId: first.body.eventId,
        channel: { id: channel.id, type: 'CUSTOM' },
        contact: { id: conversation.contactId, name: 'Ada Lovelace', created: false },
        conversation,
        conversationCreated: true,
        message: conversation.messages[0],
        referral: null,
      }),
    );
    expect(rerun).toBeNull();
    expect(await ticketsOf(admin, conversationId)).toHaveLength(1);
    // No number was taken for it either: the next ticket is TCK-3.
    const [counter] = await sql<{ last_value: string }>(
      t,
      'SELECT last_value FROM pg_sequences WHERE sequencename = ticket_number_sequence($1)',
      [admin.workspaceId],
    );
    expect(counter).toEqual({ last_value: '2' });
  });

  it('names a ticket without text after the kind of message and the contact; takes defaultPriority and the SLA due time', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    await t.http.put('/tickets/settings').set(admin.headers).send({ defaultPriority: 'HIGH' }).expect(200);
    await t.http
      .post('/sla/policies')
      .set(admin.headers)
      .send({ name: 'Low only', conditions: { priorities: ['LOW'] }, firstResponseMinutes: 1, resolutionMinutes: 1 })
      .expect(201);
    await t.http
      .post('/sla/policies')
      .set(admin.headers)
      .send({
        name: 'High on custom',
        conditions: { priorities: ['HIGH'], channelTypes: ['custom'] },
        firstResponseMinutes: 30,
        resolutionMinutes: 240,
      })
      .expect(201);
    const conversationId = await inbound(admin, channel, {
      senderId: 'bob-2',
      senderName: 'Bob Builder',
      attachments: [{ type: 'image', url: 'https://img.example.com/broken.jpg' }],
    });
    const [ticket] = await ticketsOf(admin, conversationId);
    expect(ticket).toMatchObject({ subject: 'Image from Bob Builder', description: null, priority: 'HIGH' });
    expect(new Date(ticket!.dueAt as string).getTime() - new Date(ticket!.createdAt as string).getTime()).toBe(
      240 * 60_000,
    );
    const file = await inbound(admin, channel, {
      senderId: 'anon-3',
      attachments: [{ type: 'document', url: 'https://files.example.com/invoice.pdf' }],
    });
    expect((await ticketsOf(admin, file))[0]!.subject).toMatch(/^File from /);
  });

  it('creates no ticket when autoCreateFromConversation is off', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    await t.http.put('/tickets/settings').set(admin.headers).send({ autoCreateFromConversation: false }).expect(200);
    const conversationId = await inbound(admin, channel, { senderId: 'off-1', text: 'No ticket please' });
    expect(await ticketsOf(admin, conversationId)).toEqual([]);
    await t.http.put('/tickets/settings').set(admin.headers).send({ autoCreateFromConversation: true }).expect(200);
    const next = await inbound(admin, channel, { senderId: 'on-1', text: 'Ticket please' });
    expect(await ticketsOf(admin, next)).toHaveLength(1);
  });

  it('resolveWithConversation resolves the automatic ticket when conversation.resolved is published', async () => {
    // The wrap-up endpoint (POST /conversations/:id/wrap-up) belongs to the inbox; until it exists
    // the test resolves the conversation in the database and publishes the event it will publish.
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const bus = t.app.get(EventBus);
    const resolve = async (conversationId: string) => {
      await sql(t, `UPDATE conversations SET status = 'RESOLVED', resolved_at = now() WHERE id = $1`, [conversationId]);
      const conversation = (await t.http.get(`/conversations/${conversationId}`).set(admin.headers).expect(200)).body;
      await bus.publish('conversation.resolved', admin.workspaceId, { conversationId, conversation });
    };

    // Off (the default): nothing changes.
    const off = await inbound(admin, channel, { senderId: 'r-1', text: 'First' });
    await resolve(off);
    expect((await ticketsOf(admin, off))[0]).toMatchObject({ status: 'OPEN', resolvedAt: null });

    await t.http.put('/tickets/settings').set(admin.headers).send({ resolveWithConversation: true }).expect(200);
    const on = await inbound(admin, channel, { senderId: 'r-2', text: 'Second' });
    const [automatic] = await ticketsOf(admin, on);
    const manual = await t.http
      .post('/tickets')
      .set(admin.headers)
      .send({ subject: 'Follow-up work', conversationId: on })
      .expect(201);
    events.length = 0;
    await resolve(on);
    const [after] = (await ticketsOf(admin, on)).filter((x) => x.id === automatic!.id);
    expect(after).toMatchObject({ status: 'RESOLVED', resolvedAt: expect.any(String) });
    expect((await t.http.get(`/tickets/${manual.body.id}`).set(admin.headers).expect(200)).body.status).toBe('OPEN');
    expect(events.filter((e) => e.name === 'ticket.updated').map((e) => e.data)).toEqual([
      { ticket: after, changes: ['status', 'resolvedAt'] },
    ]);

    // A closed automatic ticket stays closed; a second event changes nothing.
    const closed = await inbound(admin, channel, { senderId: 'r-3', text: 'Third' });
    const [closedTicket] = await ticketsOf(admin, closed);
    await t.http.put(`/tickets/${closedTicket!.id}`).set(admin.headers).send({ status: 'CLOSED' }).expect(200);
    events.length = 0;
    await bus.publish('conversation.resolved', admin.workspaceId, { conversationId: closed, conversation: { id: closed } });
    await bus.publish('conversation.resolved', admin.workspaceId, { conversationId: on, conversation: { id: on } });
    expect((await ticketsOf(admin, closed))[0]!.status).toBe('CLOSED');
    expect(events.filter((e) => e.name === 'ticket.updated')).toEqual([]);
  });

  it('links a manual ticket to a visible conversation (its contact and queue by default); agents only to theirs', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const conversationId = await inbound(admin, channel, { senderId: 'link-1', senderName: 'Cleo', text: 'Hi' });
    const conversation = (await t.http.get(`/conversations/${conversationId}`).set(admin.headers).expect(200)).body;
    const ticket = await t.http
      .post('/tickets')
      .set(admin.headers)
      .send({ subject: 'Manual from a conversation', conversationId })
      .expect(201);
    expect(ticket.body).toMatchObject({
      conversationId,
      contactId: conversation.contactId,
      queueId: conversation.queueId,
      source: 'MANUAL',
    });
    const explicit = await t.http
      .post('/tickets')
      .set(admin.headers)
      .send({ subject: 'No contact', conversationId, contactId: null, queueId: null })
      .expect(201);
    expect(explicit.body).toMatchObject({ conversationId, contactId: null, queueId: null });

    // An agent without conversations.view_all sees only conversations assigned to them (or unassigned in their queues).
    const other = await addMember(t, admin, 'AGENT');
    await sql(t, `UPDATE conversations SET assignee_id = $2 WHERE id = $1`, [conversationId, admin.userId]);
    const refused = await t.http
      .post('/tickets')
      .set(other.headers)
      .send({ subject: 'Not mine', conversationId })
      .expect(404);
    expect(refused.body.message).toBe('Conversation not found');
    // Another workspace's conversation is unknown.
    const stranger = await signupWorkspace(t);
    await t.http.post('/tickets').set(stranger.headers).send({ subject: 'x', conversationId }).expect(404);
  });

  it('moves tickets to the primary contact when contacts are merged', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const fromChat = await inbound(admin, channel, { senderId: 'm-1', senderName: 'Dup Person', text: 'Hello' });
    const [chatTicket] = await ticketsOf(admin, fromChat);
    const primary = await t.http.post('/contacts').set(admin.headers).send({ name: 'Primary Person' }).expect(201);
    const duplicate = await t.http.post('/contacts').set(admin.headers).send({ name: 'Second Person' }).expect(201);
    const manual = await t.http
      .post('/tickets')
      .set(admin.headers)
      .send({ subject: 'About the duplicate', contactId: duplicate.body.id })
      .expect(201);
    const untouched = await t.http
      .post('/tickets')
      .set(admin.headers)
      .send({ subject: 'About the primary', contactId: primary.body.id })
      .expect(201);

    await t.http
      .post('/contacts/merge')
      .set(admin.headers)
      .send({ primaryId: primary.body.id, duplicateIds: [duplicate.body.id, chatTicket!.contactId] })
      .expect(200);
    for (const id of [chatTicket!.id, manual.body.id, untouched.body.id]) {
      const got = await t.http.get(`/tickets/${id}`).set(admin.headers).expect(200);
      expect(got.body.contactId).toBe(primary.body.id);
    }
    const byContact = await t.http.get(`/tickets?contactId=${primary.body.id}`).set(admin.headers).expect(200);
    expect(byContact.body.data).toHaveLength(3);
    await eventually(async () => {
      const conversation = await t.http.get(`/conversations/${fromChat}`).set(admin.headers).expect(200);
      expect(conversation.body.contactId).toBe(primary.body.id);
    });
  });
});
