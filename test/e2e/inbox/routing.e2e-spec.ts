import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { TransactionHost } from 'src/core/database/transaction-host';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { ConversationOpener } from 'src/modules/inbox';
import { RoutingService } from 'src/modules/queues';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, addMember, apiToken, setPlan, signupWorkspace } from '../../utils/sessions';
import {
  type CustomChannel,
  connectCustom,
  conversationOfMessage,
  eventReaches,
  inboxEnv,
  onlineAgent,
  postCustom,
  sql,
} from './inbox-helpers';
import { MockPlatform } from './mock-platform';

interface Conversation {
  id: string;
  assigneeId: string | null;
  queueId: string | null;
}

describe('Queues, capacity, presence and routing', () => {
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

  async function workspace(): Promise<{ admin: Session; channel: CustomChannel; defaultQueueId: string }> {
    const admin = await signupWorkspace(t, 'Routing');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
    const channel = await connectCustom(t, admin, mock);
    const queues = await t.http.get('/queues').set(admin.headers).expect(200);
    return { admin, channel, defaultQueueId: queues.body.data.find((q: { isDefault: boolean }) => q.isDefault).id };
  }

  /** One inbound message from a new sender, processed; returns its conversation. */
  async function inbound(admin: Session, channel: CustomChannel, senderId: string): Promise<Conversation> {
    const ack = await postCustom(t, channel, { senderId, text: `hello from ${senderId}` }).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    const id = await conversationOfMessage(t, event.messageId as string);
    return (await t.http.get(`/conversations/${id}`).set(admin.headers).expect(200)).body;
  }

  async function setMembers(admin: Session, queueId: string, members: Session[], strategy?: string): Promise<void> {
    await t.http
      .put(`/queues/${queueId}`)
      .set(admin.headers)
      .send({ memberIds: members.map((m) => m.userId), ...(strategy ? { strategy } : {}) })
      .expect(200);
  }

  const byUserId = (sessions: Session[]): Session[] => [...sessions].sort((a, b) => (a.userId < b.userId ? -1 : 1));

  it('lists, creates, updates and deletes queues; the default queue cannot be deleted; agents only read', async () => {
    const { admin, defaultQueueId } = await workspace();
    const agent = await addMember(t, admin, 'AGENT');
    const list = await t.http.get('/queues').set(agent.headers).expect(200);
    expect(list.body).toEqual({
      data: [
        {
          id: defaultQueueId,
          name: 'General',
          isDefault: true,
          strategy: 'ROUND_ROBIN',
          memberIds: [admin.userId, agent.userId],
          createdAt: expect.any(String),
        },
      ],
      nextCursor: null,
    });
    const created = await t.http
      .post('/queues')
      .set(admin.headers)
      .send({ name: 'Billing', strategy: 'least_busy', memberIds: [agent.userId] })
      .expect(201);
    expect(created.body).toMatchObject({
      name: 'Billing',
      isDefault: false,
      strategy: 'LEAST_BUSY',
      memberIds: [agent.userId],
    });
    await t.http.post('/queues').set(admin.headers).send({ name: 'Billing' }).expect(409);
    const notMember = await t.http
      .post('/queues')
      .set(admin.headers)
      .send({ name: 'X', memberIds: ['7b0c8a4e-2f7e-4a53-9a53-0d3c7a1e9c11'] })
      .expect(400);
    expect(notMember.body.details[0].field).toBe('memberIds.0');
    await t.http.post('/queues').set(agent.headers).send({ name: 'Mine' }).expect(403);
    await t.http.put(`/queues/${created.body.id}`).set(agent.headers).send({ name: 'Mine' }).expect(403);

    const updated = await t.http
      .put(`/queues/${created.body.id}`)
      .set(admin.headers)
      .send({ name: 'Billing EU', strategy: 'MANUAL', memberIds: [] })
      .expect(200);
    expect(updated.body).toMatchObject({ name: 'Billing EU', strategy: 'MANUAL', memberIds: [] });
    const conflict = await t.http.delete(`/queues/${defaultQueueId}`).set(admin.headers).expect(409);
    expect(conflict.body.code).toBe('conflict');
    await t.http.put(`/queues/${created.body.id}`).set(admin.headers).send({ isDefault: false }).expect(400);

    // Moving the default flag makes the old default deletable.
    await t.http.put(`/queues/${created.body.id}`).set(admin.headers).send({ isDefault: true }).expect(200);
    const after = await t.http.get('/queues').set(admin.headers).expect(200);
    expect(after.body.data.filter((q: { isDefault: boolean }) => q.isDefault).map((q: { id: string }) => q.id)).toEqual(
      [created.body.id],
    );
    await t.http.delete(`/queues/${defaultQueueId}`).set(admin.headers).expect(204);
    await t.http.delete(`/queues/${defaultQueueId}`).set(admin.headers).expect(404);
    await t.http.delete(`/queues/not-a-uuid`).set(admin.headers).expect(404);
  });

  it('keeps queues, capacity and presence per workspace', async () => {
    const a = await workspace();
    const b = await workspace();
    const agentA = await addMember(t, a.admin, 'AGENT');
    const listB = await t.http.get('/queues').set(b.admin.headers).expect(200);
    expect(listB.body.data.map((q: { id: string }) => q.id)).toEqual([b.defaultQueueId]);
    await t.http.put(`/queues/${a.defaultQueueId}`).set(b.admin.headers).send({ name: 'Stolen' }).expect(404);
    await t.http.delete(`/queues/${a.defaultQueueId}`).set(b.admin.headers).expect(404);
    await t.http
      .put(`/queues/${b.defaultQueueId}`)
      .set(b.admin.headers)
      .send({ memberIds: [agentA.userId] })
      .expect(400);
    const capacity = await t.http
      .put('/queues/capacity')
      .set(b.admin.headers)
      .send({ agents: [{ userId: agentA.userId, maxConversations: 9 }] })
      .expect(400);
    expect(capacity.body.details[0].field).toBe('agents.0.userId');
    const capB = await t.http.get('/queues/capacity').set(b.admin.headers).expect(200);
    expect(capB.body.data.map((r: { userId: string }) => r.userId)).toEqual([b.admin.userId]);
    const token = await apiToken(t, b.admin);
    await t.http
      .post('/analytics/presence')
      .set(token.headers)
      .send({ status: 'ONLINE', userId: agentA.userId })
      .expect(404);
  });

  it('reports and sets capacity; presence changes are kept as intervals', async () => {
    const { admin } = await workspace();
    const agent = await addMember(t, admin, 'AGENT');
    const initial = await t.http.get('/queues/capacity').set(admin.headers).expect(200);
    expect(initial.body.data).toEqual([
      {
        userId: admin.userId,
        name: 'Owner',
        maxConversations: 5,
        openConversations: 0,
        presence: 'OFFLINE',
        available: false,
      },
      {
        userId: agent.userId,
        name: 'AGENT user',
        maxConversations: 5,
        openConversations: 0,
        presence: 'OFFLINE',
        available: false,
      },
    ]);
    await t.http.get('/queues/capacity').set(agent.headers).expect(403);
    await t.http
      .put('/queues/capacity')
      .set(admin.headers)
      .send({ agents: [{ userId: agent.userId, maxConversations: -1 }] })
      .expect(400);
    const set = await t.http
      .put('/queues/capacity')
      .set(admin.headers)
      .send({ agents: [{ userId: agent.userId, maxConversations: 2 }] })
      .expect(200);
    expect(set.body.data[1]).toMatchObject({ userId: agent.userId, maxConversations: 2 });

    const online = await t.http.post('/analytics/presence').set(agent.headers).send({ status: 'online' }).expect(200);
    expect(online.body).toEqual({ userId: agent.userId, status: 'ONLINE', since: expect.any(String), assigned: 0 });
    const again = await t.http.post('/analytics/presence').set(agent.headers).send({ status: 'ONLINE' }).expect(200);
    expect(again.body.since).toBe(online.body.since);
    await t.http.post('/analytics/presence').set(agent.headers).send({ status: 'AWAY' }).expect(200);
    await t.http.post('/analytics/presence').set(agent.headers).send({ status: 'ONLINE' }).expect(200);
    await t.http.post('/analytics/presence').set(agent.headers).send({ status: 'BUSY' }).expect(400);
    await t.http
      .post('/analytics/presence')
      .set(agent.headers)
      .send({ status: 'ONLINE', userId: admin.userId })
      .expect(403);
    const token = await apiToken(t, admin);
    await t.http.post('/analytics/presence').set(token.headers).send({ status: 'AWAY' }).expect(400);
    await t.http
      .post('/analytics/presence')
      .set(token.headers)
      .send({ status: 'AWAY', userId: admin.userId })
      .expect(200);

    const intervals = await sql<{ status: string; closed: boolean }>(
      t,
      'SELECT status, ended_at IS NOT NULL AS closed FROM presence_intervals WHERE workspace_id = $1 AND user_id = $2 ORDER BY started_at, ended_at NULLS LAST',
      [admin.workspaceId, agent.userId],
    );
    expect(intervals).toEqual([
      { status: 'ONLINE', closed: true },
      { status: 'AWAY', closed: true },
      { status: 'ONLINE', closed: false },
    ]);
    const capacity = await t.http.get('/queues/capacity').set(admin.headers).expect(200);
    expect(capacity.body.data).toEqual([
      expect.objectContaining({ userId: admin.userId, presence: 'AWAY', available: false }),
      expect.objectContaining({ userId: agent.userId, presence: 'ONLINE', available: true, maxConversations: 2 }),
    ]);
  });

  it('ROUND_ROBIN cycles through ONLINE members in a fixed order, skipping AWAY ones', async () => {
    const { admin, channel, defaultQueueId } = await workspace();
    const agents = byUserId([await onlineAgent(t, admin), await onlineAgent(t, admin), await onlineAgent(t, admin)]);
    await setMembers(admin, defaultQueueId, agents);
    const assigned: (string | null)[] = [];
    for (let i = 0; i < 6; i++) assigned.push((await inbound(admin, channel, `rr-${i}`)).assigneeId);
    const [u0, u1, u2] = agents.map((a) => a.userId);
    expect(assigned).toEqual([u0, u1, u2, u0, u1, u2]);
    // The pointer is in the database: the member this queue assigned last.
    const [pointer] = await sql<{ user_id: string }>(
      t,
      'SELECT user_id FROM queue_members WHERE queue_id = $1 ORDER BY last_assigned_at DESC NULLS LAST LIMIT 1',
      [defaultQueueId],
    );
    expect(pointer!.user_id).toBe(u2);

    await t.http.post('/analytics/presence').set(agents[0]!.headers).send({ status: 'AWAY' }).expect(200);
    expect((await inbound(admin, channel, 'rr-6')).assigneeId).toBe(u1);
    expect((await inbound(admin, channel, 'rr-7')).assigneeId).toBe(u2);
    expect((await inbound(admin, channel, 'rr-8')).assigneeId).toBe(u1);
  });

  it('LEAST_BUSY picks the fewest open conversations, ties to the one idle longest', async () => {
    const { admin, channel, defaultQueueId } = await workspace();
    const agents = byUserId([await onlineAgent(t, admin), await onlineAgent(t, admin), await onlineAgent(t, admin)]);
    await setMembers(admin, defaultQueueId, agents, 'LEAST_BUSY');
    const [u0, u1, u2] = agents.map((a) => a.userId);
    const first = [];
    for (let i = 0; i < 3; i++) first.push(await inbound(admin, channel, `lb-${i}`));
    expect(first.map((c) => c.assigneeId)).toEqual([u0, u1, u2]);
    // Everyone has one: the tie goes to whoever was assigned longest ago (u0).
    expect((await inbound(admin, channel, 'lb-3')).assigneeId).toBe(u0);
    // u2 resolves theirs: now u2 has the fewest, whatever the idle times.
    await sql(t, `UPDATE conversations SET status = 'RESOLVED', resolved_at = now() WHERE id = $1`, [first[2]!.id]);
    expect((await inbound(admin, channel, 'lb-4')).assigneeId).toBe(u2);
    expect((await inbound(admin, channel, 'lb-5')).assigneeId).toBe(u1);
  });

  it('respects capacity: conversations wait, then go oldest first to an agent coming ONLINE or given more capacity', async () => {
    const { admin, channel, defaultQueueId } = await workspace();
    const busy = await onlineAgent(t, admin);
    const later = await addMember(t, admin, 'AGENT');
    await setMembers(admin, defaultQueueId, [busy, later]);
    await t.http
      .put('/queues/capacity')
      .set(admin.headers)
      .send({
        agents: [
          { userId: busy.userId, maxConversations: 1 },
          { userId: later.userId, maxConversations: 1 },
        ],
      })
      .expect(200);
    const taken = await inbound(admin, channel, 'cap-1');
    expect(taken.assigneeId).toBe(busy.userId);
    const waiting1 = await inbound(admin, channel, 'cap-2');
    const waiting2 = await inbound(admin, channel, 'cap-3');
    expect([waiting1.assigneeId, waiting2.assigneeId]).toEqual([null, null]);
    expect(waiting1.queueId).toBe(defaultQueueId);
    const capacity = await t.http.get('/queues/capacity').set(admin.headers).expect(200);
    expect(capacity.body.data.find((r: { userId: string }) => r.userId === busy.userId)).toMatchObject({
      openConversations: 1,
      available: false,
    });

    const online = await t.http.post('/analytics/presence').set(later.headers).send({ status: 'ONLINE' }).expect(200);
    expect(online.body.assigned).toBe(1);
    const get = async (id: string) =>
      (await t.http.get(`/conversations/${id}`).set(admin.headers).expect(200)).body as Conversation;
    expect((await get(waiting1.id)).assigneeId).toBe(later.userId);
    expect((await get(waiting2.id)).assigneeId).toBeNull();

    await t.http
      .put('/queues/capacity')
      .set(admin.headers)
      .send({ agents: [{ userId: busy.userId, maxConversations: 3 }] })
      .expect(200);
    expect((await get(waiting2.id)).assigneeId).toBe(busy.userId);
  });

  /** Many new senders at once (processed concurrently by the workers on PostgreSQL); returns the conversations. */
  async function inboundBurst(
    admin: Session,
    channel: CustomChannel,
    prefix: string,
    n: number,
  ): Promise<Conversation[]> {
    const acks = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        postCustom(t, channel, { senderId: `${prefix}-${i}`, text: `burst ${i}` }).expect(200),
      ),
    );
    const conversations: Conversation[] = [];
    for (const ack of acks) {
      const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
      const id = await conversationOfMessage(t, event.messageId as string);
      conversations.push((await t.http.get(`/conversations/${id}`).set(admin.headers).expect(200)).body);
    }
    return conversations;
  }

  const countBy = (conversations: Conversation[]): Map<string | null, number> => {
    const counts = new Map<string | null, number>();
    for (const c of conversations) counts.set(c.assigneeId, (counts.get(c.assigneeId) ?? 0) + 1);
    return counts;
  };

  it('never assigns above capacity when many new conversations arrive at once; the rest wait', async () => {
    const { admin, channel, defaultQueueId } = await workspace();
    const agents = byUserId([await onlineAgent(t, admin), await onlineAgent(t, admin), await onlineAgent(t, admin)]);
    await setMembers(admin, defaultQueueId, agents);
    const limits = [1, 2, 3];
    await t.http
      .put('/queues/capacity')
      .set(admin.headers)
      .send({ agents: agents.map((a, i) => ({ userId: a.userId, maxConversations: limits[i] })) })
      .expect(200);

    const conversations = await inboundBurst(admin, channel, 'cap-burst', 30);
    const counts = countBy(conversations);
    // 1 + 2 + 3 seats: every seat is taken (nobody is reported unavailable while a seat is free), none twice.
    agents.forEach((a, i) => expect(counts.get(a.userId) ?? 0).toBe(limits[i]));
    expect(counts.get(null)).toBe(30 - 6);
    const capacity = await t.http.get('/queues/capacity').set(admin.headers).expect(200);
    for (const [i, a] of agents.entries()) {
      expect(capacity.body.data.find((r: { userId: string }) => r.userId === a.userId)).toMatchObject({
        openConversations: limits[i],
        available: false,
      });
    }
    // One automatic ticket per conversation, numbered without duplicates.
    const tickets = await sql<{ number: string }>(t, 'SELECT number FROM tickets WHERE workspace_id = $1', [
      admin.workspaceId,
    ]);
    expect(tickets).toHaveLength(30);
    expect(new Set(tickets.map((r) => r.number)).size).toBe(30);
  });

  it('spreads a burst of new conversations over the ROUND_ROBIN and LEAST_BUSY members', async () => {
    const { admin, channel, defaultQueueId } = await workspace();
    const agents = byUserId([await onlineAgent(t, admin), await onlineAgent(t, admin), await onlineAgent(t, admin)]);
    await setMembers(admin, defaultQueueId, agents);
    await t.http
      .put('/queues/capacity')
      .set(admin.headers)
      .send({ agents: agents.map((a) => ({ userId: a.userId, maxConversations: 100 })) })
      .expect(200);

    const rr = countBy(await inboundBurst(admin, channel, 'rr-burst', 30));
    expect(rr.get(null)).toBeUndefined();
    // Sequentially exactly 10 each; concurrent picks skip the member another pick holds, so each
    // still gets a fair share (never one member taking the burst).
    for (const a of agents) expect(rr.get(a.userId) ?? 0).toBeGreaterThanOrEqual(6);

    await setMembers(admin, defaultQueueId, agents, 'LEAST_BUSY');
    const lb = countBy(await inboundBurst(admin, channel, 'lb-burst', 30));
    expect(lb.get(null)).toBeUndefined();
    const totals = agents.map((a) => (rr.get(a.userId) ?? 0) + (lb.get(a.userId) ?? 0));
    expect(totals.reduce((x, y) => x + y, 0)).toBe(60);
    // LEAST_BUSY evens the open conversations out again (exactly 20 each when processed one by one).
    for (const total of totals) expect(total).toBeGreaterThanOrEqual(16);
  });

  // Two transactions at once need two sessions: PostgreSQL only (the embedded engine has one).
  const onPostgres = process.env.DATABASE_URL ? it : it.skip;

  /**
   * A transaction that picks an agent of the queue (and, with `contactId`, opens that contact's
   * conversation, assigned to whoever was picked), then stays open until released.
   */
  function heldPick(admin: Session, queueId: string, open?: { channelId: string; contactId: string }) {
    const routing = t.app.get(RoutingService);
    const opener = t.app.get(ConversationOpener);
    const tx = t.app.get(TransactionHost);
    let release!: (outcome: 'commit' | 'rollback') => void;
    const released = new Promise<'commit' | 'rollback'>((resolve) => (release = resolve));
    let picked!: (userId: string | null) => void;
    const pick = new Promise<string | null>((resolve) => (picked = resolve));
    const done = runAsWorkspace(admin.workspaceId, () =>
      tx
        .run(async () => {
          if (open) {
            const { conversation } = await opener.openFor({
              channel: { id: open.channelId, type: 'CUSTOM' },
              contactId: open.contactId,
              externalId: `held-${open.contactId}`,
              queueId,
            });
            picked(conversation.assigneeId);
          } else {
            picked(await routing.pickAgent(queueId));
          }
          if ((await released) === 'rollback') throw new Error('rolled back on purpose');
        })
        .catch((error: Error) => {
          if (error.message !== 'rolled back on purpose') throw error;
        }),
    );
    return { pick, release, done };
  }

  /** A pick in a transaction of its own; `result()` is undefined while it has not answered. */
  function laterPick(admin: Session, queueId: string) {
    let answer: string | null | undefined;
    const routing = t.app.get(RoutingService);
    const done = runAsWorkspace(admin.workspaceId, () => routing.pickAgent(queueId)).then(
      (userId) => (answer = userId),
    );
    return { done, result: () => answer };
  }

  const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

  onPostgres('a pick does not wait for a transaction that took another seat of the same agent', async () => {
    const { admin, defaultQueueId } = await workspace();
    const agent = await onlineAgent(t, admin);
    await setMembers(admin, defaultQueueId, [agent]);
    const holder = heldPick(admin, defaultQueueId);
    expect(await holder.pick).toBe(agent.userId);
    // The agent has seats left (5 by default): the second pick answers while the first is still open.
    const second = laterPick(admin, defaultQueueId);
    await second.done;
    expect(second.result()).toBe(agent.userId);
    holder.release('commit');
    await holder.done;
  });

  onPostgres(
    'a pick waits for a transaction holding the last seat and takes it when that one ends without the assignment',
    async () => {
      const { admin, defaultQueueId } = await workspace();
      const agent = await onlineAgent(t, admin);
      await setMembers(admin, defaultQueueId, [agent]);
      await t.http
        .put('/queues/capacity')
        .set(admin.headers)
        .send({ agents: [{ userId: agent.userId, maxConversations: 1 }] })
        .expect(200);
      for (const outcome of ['rollback', 'commit'] as const) {
        // The holder picks but assigns nothing (rolled back, or committed without a conversation).
        const holder = heldPick(admin, defaultQueueId);
        expect(await holder.pick).toBe(agent.userId);
        const second = laterPick(admin, defaultQueueId);
        await settle();
        expect(second.result()).toBeUndefined();
        holder.release(outcome);
        await holder.done;
        await second.done;
        expect(second.result()).toBe(agent.userId);
      }
    },
  );

  onPostgres('two concurrent new conversations never take more seats than the agent has', async () => {
    const { admin, channel, defaultQueueId } = await workspace();
    const agent = await onlineAgent(t, admin);
    await setMembers(admin, defaultQueueId, [agent]);
    await t.http
      .put('/queues/capacity')
      .set(admin.headers)
      .send({ agents: [{ userId: agent.userId, maxConversations: 1 }] })
      .expect(200);
    const contact = async (name: string): Promise<string> =>
      (await t.http.post('/contacts').set(admin.headers).send({ name }).expect(201)).body.id;
    const first = heldPick(admin, defaultQueueId, { channelId: channel.id, contactId: await contact('First') });
    expect(await first.pick).toBe(agent.userId);
    // The first conversation is not committed yet; the agent's one seat is taken all the same.
    const second = heldPick(admin, defaultQueueId, { channelId: channel.id, contactId: await contact('Second') });
    await settle();
    first.release('commit');
    await first.done;
    expect(await second.pick).toBeNull();
    second.release('commit');
    await second.done;
    const open = await sql<{ n: number }>(
      t,
      `SELECT count(*)::int AS n FROM conversations WHERE workspace_id = $1 AND assignee_id = $2 AND status = 'OPEN'`,
      [admin.workspaceId, agent.userId],
    );
    expect(open[0]?.n).toBe(1);
  });

  it('MANUAL assigns nobody; agents without view_all see only their own and unassigned conversations of their queues', async () => {
    const { admin, channel, defaultQueueId } = await workspace();
    const agent = await onlineAgent(t, admin);
    const other = await onlineAgent(t, admin);
    await setMembers(admin, defaultQueueId, [agent, other], 'MANUAL');
    const unassigned = await inbound(admin, channel, 'man-1');
    expect(unassigned.assigneeId).toBeNull();
    await t.http.post('/analytics/presence').set(agent.headers).send({ status: 'AWAY' }).expect(200);
    expect(
      (await t.http.post('/analytics/presence').set(agent.headers).send({ status: 'ONLINE' }).expect(200)).body
        .assigned,
    ).toBe(0);

    // Unassigned in one of their queues: visible to the agent.
    await t.http.get(`/conversations/${unassigned.id}`).set(agent.headers).expect(200);
    // Out of the queue: no longer.
    await setMembers(admin, defaultQueueId, [other], 'MANUAL');
    await t.http.get(`/conversations/${unassigned.id}`).set(agent.headers).expect(404);

    // Switching the queue to ROUND_ROBIN assigns what waits there.
    await setMembers(admin, defaultQueueId, [agent, other], 'ROUND_ROBIN');
    const nowAssigned = (await t.http.get(`/conversations/${unassigned.id}`).set(admin.headers).expect(200))
      .body as Conversation;
    expect([agent.userId, other.userId]).toContain(nowAssigned.assigneeId);
    const next = [await inbound(admin, channel, 'man-2'), await inbound(admin, channel, 'man-3')];
    const own = next.find((c) => c.assigneeId === agent.userId)!;
    const theirs = next.find((c) => c.assigneeId === other.userId)!;
    expect(own).toBeDefined();
    expect(theirs).toBeDefined();
    await t.http.get(`/conversations/${own.id}`).set(agent.headers).expect(200);
    await t.http.get(`/conversations/${theirs.id}`).set(agent.headers).expect(404);
    await t.http.post(`/conversations/${theirs.id}/messages`).set(agent.headers).send({ text: 'hi' }).expect(404);
    await t.http.post(`/conversations/${own.id}/messages`).set(agent.headers).send({ text: 'hi' }).expect(201);
  });
});
