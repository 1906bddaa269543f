import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type DomainEvent, EventBus } from 'src/core/events/event-bus';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { ConversationOpenedHooks, type OpenedConversation } from 'src/modules/inbox';
import { SlaBreachScheduler } from 'src/modules/sla';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import {
  type CustomChannel,
  connectCustom,
  conversationOfMessage,
  conversationSatisfies,
  eventReaches,
  inboxEnv,
  onlineAgent,
  postCustom,
  sql,
} from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';

type Policy = Record<string, unknown> & { id: string; name: string };

const MINUTE = 60_000;

describe('SLA on conversations: due times, first response, summary, breaches', () => {
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

  async function policy(s: Session, body: Record<string, unknown>): Promise<Policy> {
    const res = await t.http.post('/sla/policies').set(s.headers).send(body).expect(201);
    return res.body;
  }

  async function inbound(admin: Session, channel: CustomChannel, message: Record<string, unknown>): Promise<string> {
    const ack = await postCustom(t, channel, message).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    expect(event.outcome).toBe('MESSAGE_STORED');
    return conversationOfMessage(t, event.messageId as string);
  }

  async function conversation(s: Session, id: string): Promise<Record<string, string | null>> {
    return (await t.http.get(`/conversations/${id}`).set(s.headers).expect(200)).body;
  }

  const iso = (ms: number) => new Date(ms).toISOString();

  /** Hand-sets a conversation's SLA record and timestamps (the summary reads both). */
  async function setTimes(
    id: string,
    v: {
      created: number;
      policy: Policy;
      frDue: number;
      resDue: number;
      firstResponse?: number | null;
      resolved?: number | null;
    },
  ): Promise<void> {
    const resolved = v.resolved ?? null;
    await sql(
      t,
      `UPDATE conversations SET created_at = $2, first_response_at = $3, resolved_at = $4, status = $5,
              first_response_due_at = $6, resolution_due_at = $7 WHERE id = $1`,
      [
        id,
        iso(v.created),
        v.firstResponse == null ? null : iso(v.firstResponse),
        resolved === null ? null : iso(resolved),
        resolved === null ? 'OPEN' : 'RESOLVED',
        iso(v.frDue),
        iso(v.resDue),
      ],
    );
    await sql(
      t,
      `UPDATE conversation_slas SET policy_id = $2, policy_name = $3, conversation_created_at = $4,
              first_response_due_at = $5, resolution_due_at = $6 WHERE conversation_id = $1`,
      [id, v.policy.id, v.policy.name, iso(v.created), iso(v.frDue), iso(v.resDue)],
    );
  }

  it('stamps a new conversation with the first active matching policy; the first reply stamps firstResponseAt', async () => {
    const admin = await enterprise();
    const agent = await onlineAgent(t, admin);
    const channel = await connectCustom(t, admin, mock);
    await policy(admin, {
      name: 'Urgent only',
      conditions: { priorities: ['URGENT'] },
      firstResponseMinutes: 5,
      resolutionMinutes: 60,
    });
    await policy(admin, {
      name: 'Inactive custom',
      active: false,
      conditions: { channelTypes: ['CUSTOM'] },
      firstResponseMinutes: 1,
      resolutionMinutes: 1,
    });
    const custom = await policy(admin, {
      name: 'Custom channel',
      conditions: { channelTypes: ['CUSTOM'], priorities: ['MEDIUM'] },
      firstResponseMinutes: 30,
      resolutionMinutes: 480,
    });
    await policy(admin, { name: 'Everything', firstResponseMinutes: 10, resolutionMinutes: 100 });

    const id = await inbound(admin, channel, { senderId: 'sla-1', senderName: 'Sam', text: 'Where is my parcel?' });
    const created = await conversation(admin, id);
    const createdAt = Date.parse(created.createdAt!);
    expect(created).toMatchObject({
      firstResponseDueAt: iso(createdAt + 30 * MINUTE),
      resolutionDueAt: iso(createdAt + 480 * MINUTE),
      firstResponseAt: null,
    });
    const [applied] = await sql<{ policy_id: string; policy_name: string }>(
      t,
      'SELECT policy_id, policy_name FROM conversation_slas WHERE conversation_id = $1',
      [id],
    );
    expect(applied).toEqual({ policy_id: custom.id, policy_name: 'Custom channel' });

    const reply = await t.http
      .post(`/conversations/${id}/messages`)
      .set(agent.headers)
      .send({ text: 'On its way!' })
      .expect(201);
    const answered = await conversation(admin, id);
    expect(answered.firstResponseAt).toBe(reply.body.createdAt);
    await t.http.post(`/conversations/${id}/messages`).set(agent.headers).send({ text: 'Anything else?' }).expect(201);
    // The customer writes again: same conversation, same due times, the first response stays.
    await inbound(admin, channel, { senderId: 'sla-1', text: 'Thanks' });
    const later = await conversationSatisfies(t, admin, id, (c) => expect(c.messages).toHaveLength(4));
    expect(later).toMatchObject({
      firstResponseAt: reply.body.createdAt,
      firstResponseDueAt: created.firstResponseDueAt,
      resolutionDueAt: created.resolutionDueAt,
    });
    const rows = await sql(t, 'SELECT 1 FROM conversation_slas WHERE conversation_id = $1', [id]);
    expect(rows).toHaveLength(1);

    // No active matching policy: no due times.
    const policies = (await t.http.get('/sla/policies').set(admin.headers).expect(200)).body.data as Policy[];
    for (const p of policies) {
      await t.http.put(`/sla/policies/${p.id}`).set(admin.headers).send({ active: false }).expect(200);
    }
    const none = await inbound(admin, channel, { senderId: 'sla-2', text: 'Hello?' });
    expect(await conversation(admin, none)).toMatchObject({ firstResponseDueAt: null, resolutionDueAt: null });
    expect(await sql(t, 'SELECT 1 FROM conversation_slas WHERE conversation_id = $1', [none])).toEqual([]);
  });

  it('applies a policy once to a conversation announced by the "conversation opened" hook from elsewhere', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const id = await inbound(admin, channel, { senderId: 'elsewhere-1', text: 'Hi' });
    const before = await conversation(admin, id);
    expect(before.firstResponseDueAt).toBeNull();
    const p = await policy(admin, { name: 'Late policy', firstResponseMinutes: 20, resolutionMinutes: 200 });
    const hooks = t.app.get(ConversationOpenedHooks);
    const opened: OpenedConversation = {
      id,
      channelId: channel.id,
      channelType: before.channelType as string,
      contactId: before.contactId as string,
      queueId: (before.queueId as string | null) ?? null,
      assigneeId: (before.assigneeId as string | null) ?? null,
      priority: before.priority as OpenedConversation['priority'],
      createdAt: new Date(before.createdAt!),
    };
    await runAsWorkspace(admin.workspaceId, () => hooks.run(opened));
    const after = await conversation(admin, id);
    const createdAt = Date.parse(before.createdAt!);
    expect(after).toMatchObject({
      firstResponseDueAt: iso(createdAt + 20 * MINUTE),
      resolutionDueAt: iso(createdAt + 200 * MINUTE),
    });
    // Announced again after the policy changed: the first application stands.
    await t.http.put(`/sla/policies/${p.id}`).set(admin.headers).send({ firstResponseMinutes: 1 }).expect(200);
    await runAsWorkspace(admin.workspaceId, () => hooks.run(opened));
    expect((await conversation(admin, id)).firstResponseDueAt).toBe(after.firstResponseDueAt);
  });

  it('computes the summary in SQL, matching hand-computed figures per window and policy', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const a = await policy(admin, { name: 'A', firstResponseMinutes: 10, resolutionMinutes: 60 });
    const b = await policy(admin, {
      name: 'B',
      conditions: { priorities: ['URGENT'] },
      firstResponseMinutes: 30,
      resolutionMinutes: 120,
    });
    const ids: string[] = [];
    for (let i = 1; i <= 7; i++) ids.push(await inbound(admin, channel, { senderId: `sum-${i}`, text: `Case ${i}` }));
    const [c1, c2, c3, c4, c5, c6, c7] = ids as [string, string, string, string, string, string, string];

    const now = Date.now();
    const t0 = Math.floor((now - 10 * 24 * 60 * MINUTE) / MINUTE) * MINUTE;
    const aDue = { frDue: t0 + 10 * MINUTE, resDue: t0 + 60 * MINUTE };
    const bDue = { frDue: t0 + 30 * MINUTE, resDue: t0 + 120 * MINUTE };
    // A: replied in 5 min, resolved in 50 → both met.
    await setTimes(c1, { created: t0, policy: a, ...aDue, firstResponse: t0 + 5 * MINUTE, resolved: t0 + 50 * MINUTE });
    // A: replied in 15 min, resolved in 70 → both breached.
    await setTimes(c2, {
      created: t0,
      policy: a,
      ...aDue,
      firstResponse: t0 + 15 * MINUTE,
      resolved: t0 + 70 * MINUTE,
    });
    // A: resolved in 8 min without a reply → the first response counts as met (resolved in time); resolution met.
    await setTimes(c3, { created: t0, policy: a, ...aDue, resolved: t0 + 8 * MINUTE });
    // B: replied in 20 min, never resolved, resolution due long ago → met / breached.
    await setTimes(c4, { created: t0, policy: b, ...bDue, firstResponse: t0 + 20 * MINUTE });
    // B: created a minute ago, nothing yet → pending / pending.
    const recent = now - MINUTE;
    await setTimes(c5, { created: recent, policy: b, frDue: recent + 30 * MINUTE, resDue: recent + 120 * MINUTE });
    // A, but created before the window → left out.
    await setTimes(c6, {
      created: t0 - 2 * 24 * 60 * MINUTE,
      policy: a,
      frDue: t0 - 2 * 24 * 60 * MINUTE + 10 * MINUTE,
      resDue: t0 - 2 * 24 * 60 * MINUTE + 60 * MINUTE,
      firstResponse: t0 - 2 * 24 * 60 * MINUTE + MINUTE,
    });
    // B: no reply, resolved after 200 min → first response breached (resolved after its due time), resolution breached.
    await setTimes(c7, { created: t0, policy: b, ...bDue, resolved: t0 + 200 * MINUTE });

    const from = iso(t0 - 24 * 60 * MINUTE);
    const to = iso(now + 60 * MINUTE);
    const summary = await t.http.get(`/sla/summary?from=${from}&to=${to}`).set(admin.headers).expect(200);
    expect(summary.body).toEqual({
      from,
      to,
      conversations: 6,
      // met c1 c3 c4, breached c2 c7, pending c5; replies after 300, 900, 1200 s.
      firstResponse: { met: 3, breached: 2, pending: 1, complianceRate: 0.6, averageSeconds: 800 },
      // met c1 c3, breached c2 c4 c7, pending c5; resolved after 3000, 4200, 480, 12000 s.
      resolution: { met: 2, breached: 3, pending: 1, complianceRate: 0.4, averageSeconds: 4920 },
      byPolicy: [
        {
          policyId: a.id,
          name: 'A',
          conversations: 3,
          firstResponse: { met: 2, breached: 1, pending: 0, complianceRate: 0.6667, averageSeconds: 600 },
          resolution: { met: 2, breached: 1, pending: 0, complianceRate: 0.6667, averageSeconds: 2560 },
        },
        {
          policyId: b.id,
          name: 'B',
          conversations: 3,
          firstResponse: { met: 1, breached: 1, pending: 1, complianceRate: 0.5, averageSeconds: 1200 },
          resolution: { met: 0, breached: 2, pending: 1, complianceRate: 0, averageSeconds: 12000 },
        },
      ],
    });

    // A narrower window: only what was created at t0.
    const narrow = await t.http
      .get(`/sla/summary?from=${iso(t0)}&to=${iso(t0 + 1)}`)
      .set(admin.headers)
      .expect(200);
    expect(narrow.body.conversations).toBe(5);
    expect(narrow.body.firstResponse).toEqual({
      met: 3,
      breached: 2,
      pending: 0,
      complianceRate: 0.6,
      averageSeconds: 800,
    });

    // A renamed policy shows its current name; a deleted one keeps its figures under the name it had.
    await t.http.put(`/sla/policies/${a.id}`).set(admin.headers).send({ name: 'A renamed' }).expect(200);
    await t.http.delete(`/sla/policies/${b.id}`).set(admin.headers).expect(204);
    const renamed = await t.http.get(`/sla/summary?from=${from}&to=${to}`).set(admin.headers).expect(200);
    expect(renamed.body.byPolicy.map((p: Policy) => [p.policyId, p.name, p.conversations])).toEqual([
      [a.id, 'A renamed', 3],
      [b.id, 'B', 3],
    ]);

    // Another workspace sees nothing of it.
    const other = await enterprise();
    const empty = await t.http.get(`/sla/summary?from=${from}&to=${to}`).set(other.headers).expect(200);
    const zero = { met: 0, breached: 0, pending: 0, complianceRate: null, averageSeconds: null };
    expect(empty.body).toEqual({ from, to, conversations: 0, firstResponse: zero, resolution: zero, byPolicy: [] });
    // The default window is the last 30 days (c6, 12 days old, is in it).
    const defaults = await t.http.get('/sla/summary').set(admin.headers).expect(200);
    expect(Date.parse(defaults.body.to) - Date.parse(defaults.body.from)).toBe(30 * 24 * 60 * MINUTE);
    expect(defaults.body.conversations).toBe(7);
  });

  it('records each breach once and publishes sla.breached once, with checks running side by side', async () => {
    const admin = await enterprise();
    const channel = await connectCustom(t, admin, mock);
    const p = await policy(admin, { name: 'Strict', firstResponseMinutes: 10, resolutionMinutes: 60 });
    const other = await enterprise();
    const otherChannel = await connectCustom(t, other, mock);
    const q = await policy(other, { name: 'Other strict', firstResponseMinutes: 5, resolutionMinutes: 50 });

    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push(await inbound(admin, channel, { senderId: `br-${i}`, text: `Case ${i}` }));
    const [unanswered, answered, abandoned, future, closedQuietly] = ids as [string, string, string, string, string];
    const foreign = await inbound(other, otherChannel, { senderId: 'br-x', text: 'Elsewhere' });

    const now = Date.now();
    const created = now - 2 * 60 * MINUTE;
    // No reply, first response due 110 min ago; resolution not due yet.
    await setTimes(unanswered, { created, policy: p, frDue: created + 10 * MINUTE, resDue: now + 60 * MINUTE });
    // Replied in time: nothing to report.
    await setTimes(answered, {
      created,
      policy: p,
      frDue: created + 10 * MINUTE,
      resDue: now + 60 * MINUTE,
      firstResponse: created + 5 * MINUTE,
    });
    // Nothing happened and both targets are past due.
    await setTimes(abandoned, { created, policy: p, frDue: created + 10 * MINUTE, resDue: created + 60 * MINUTE });
    // Not due yet.
    await setTimes(future, { created: now, policy: p, frDue: now + 10 * MINUTE, resDue: now + 60 * MINUTE });
    // Resolved without a reply before either due time: both met.
    await setTimes(closedQuietly, {
      created,
      policy: p,
      frDue: created + 10 * MINUTE,
      resDue: created + 60 * MINUTE,
      resolved: created + 3 * MINUTE,
    });
    await setTimes(foreign, { created, policy: q, frDue: created + 5 * MINUTE, resDue: now + 60 * MINUTE });

    const breaches = () =>
      events
        .filter(
          (e) =>
            e.name === 'sla.breached' && (e.workspaceId === admin.workspaceId || e.workspaceId === other.workspaceId),
        )
        .map((e): Record<string, unknown> => ({ workspaceId: e.workspaceId, ...e.data }))
        .sort((x, y) =>
          `${String(x.conversationId)}${String(x.target)}`.localeCompare(
            `${String(y.conversationId)}${String(y.target)}`,
          ),
        );
    const expected = (
      workspaceId: string,
      conversationId: string,
      target: string,
      policyOf: Policy,
      dueAt: number,
    ) => ({
      workspaceId,
      conversationId,
      target,
      policyId: policyOf.id,
      policyName: policyOf.name,
      dueAt: iso(dueAt),
      breachedAt: expect.any(String),
    });

    const scheduler = t.app.get(SlaBreachScheduler);
    await Promise.all([scheduler.checkBreaches(), scheduler.checkBreaches(), scheduler.checkBreaches()]);
    expect(breaches()).toEqual(
      [
        expected(admin.workspaceId, unanswered, 'FIRST_RESPONSE', p, created + 10 * MINUTE),
        expected(admin.workspaceId, abandoned, 'FIRST_RESPONSE', p, created + 10 * MINUTE),
        expected(admin.workspaceId, abandoned, 'RESOLUTION', p, created + 60 * MINUTE),
        expected(other.workspaceId, foreign, 'FIRST_RESPONSE', q, created + 5 * MINUTE),
      ].sort((x, y) => `${x.conversationId}${x.target}`.localeCompare(`${y.conversationId}${y.target}`)),
    );

    const marks = await sql<{
      conversation_id: string;
      fr_checked: boolean;
      fr_breached: boolean;
      res_checked: boolean;
      res_breached: boolean;
    }>(
      t,
      `SELECT conversation_id, first_response_checked_at IS NOT NULL AS fr_checked,
              first_response_breached_at IS NOT NULL AS fr_breached,
              resolution_checked_at IS NOT NULL AS res_checked, resolution_breached_at IS NOT NULL AS res_breached
         FROM conversation_slas WHERE conversation_id = ANY($1::uuid[])`,
      [[...ids, foreign]],
    );
    const mark = (id: string) => {
      const { conversation_id: _, ...rest } = marks.find((m) => m.conversation_id === id)!;
      return rest;
    };
    expect(mark(unanswered)).toEqual({ fr_checked: true, fr_breached: true, res_checked: false, res_breached: false });
    expect(mark(answered)).toEqual({ fr_checked: true, fr_breached: false, res_checked: false, res_breached: false });
    expect(mark(abandoned)).toEqual({ fr_checked: true, fr_breached: true, res_checked: true, res_breached: true });
    expect(mark(future)).toEqual({ fr_checked: false, fr_breached: false, res_checked: false, res_breached: false });
    expect(mark(closedQuietly)).toEqual({
      fr_checked: true,
      fr_breached: false,
      res_checked: true,
      res_breached: false,
    });

    // Nothing new: no event is published twice.
    await scheduler.checkBreaches();
    expect(breaches()).toHaveLength(4);

    // A late reply is a breach too, reported when its due time has passed.
    await setTimes(future, {
      created: now - 30 * MINUTE,
      policy: p,
      frDue: now - 20 * MINUTE,
      resDue: now + 60 * MINUTE,
      firstResponse: now - 15 * MINUTE,
    });
    await scheduler.checkBreaches();
    expect(breaches()).toHaveLength(5);
    expect(breaches()).toContainEqual(expected(admin.workspaceId, future, 'FIRST_RESPONSE', p, now - 20 * MINUTE));
    await Promise.all([scheduler.checkBreaches(), scheduler.checkBreaches()]);
    expect(breaches()).toHaveLength(5);
  });
});
