import { randomUUID } from 'node:crypto';
import type { TestApp } from '../../utils/test-app';
import { type Session, addMember, signupWorkspace } from '../../utils/sessions';
import { sql } from '../inbox/inbox-helpers';

/**
 * A small, fully known day of traffic written straight into the tables (timestamps chosen by hand
 * around the Europe/Berlin DST change of 2026-03-29, when clocks jump 02:00 CET → 03:00 CEST).
 * Every expected figure in the tests is counted by hand from this list, not computed by SQL.
 */
export interface Seeded {
  readonly admin: Session;
  readonly agent2: Session;
  readonly chA: string;
  readonly chB: string;
  readonly q1: string;
  readonly q2: string;
  readonly conv: Record<'C0' | 'C1' | 'C2' | 'C3' | 'C4' | 'C5' | 'C6' | 'C7', string>;
}

export const WINDOW = { from: '2026-03-27T23:00:00.000Z', to: '2026-03-30T22:00:00.000Z' };

async function channel(t: TestApp, ws: string, type: string, name: string): Promise<string> {
  const rows = await sql<{ id: string }>(
    t,
    `INSERT INTO channel_connections (workspace_id, type, name) VALUES ($1, $2, $3) RETURNING id`,
    [ws, type, name],
  );
  return rows[0]!.id;
}

export async function seedWorkspace(t: TestApp): Promise<Seeded> {
  const admin = await signupWorkspace(t, 'Analytics');
  await t.http.put('/workspace').set(admin.headers).send({ timezone: 'Europe/Berlin' }).expect(200);
  const agent2 = await addMember(t, admin, 'AGENT');
  await sql(t, `UPDATE users SET name = 'Agent Two' WHERE id = $1`, [agent2.userId]);
  await sql(t, `UPDATE users SET name = 'Owner One' WHERE id = $1`, [admin.userId]);
  const ws = admin.workspaceId;
  const q1 = (await sql<{ id: string }>(t, `SELECT id FROM queues WHERE workspace_id = $1 AND is_default`, [ws]))[0]!
    .id;
  const q2 = (
    await t.http
      .post('/queues')
      .set(admin.headers)
      .send({ name: 'Second line', memberIds: [agent2.userId] })
      .expect(201)
  ).body.id as string;
  const chA = await channel(t, ws, 'CUSTOM', 'Shop app');
  const chB = await channel(t, ws, 'TELEGRAM', 'Bot');
  const contact = (
    await sql<{ id: string }>(
      t,
      `INSERT INTO contacts (workspace_id, name) VALUES ($1, '=HYPERLINK("x")') RETURNING id`,
      [ws],
    )
  )[0]!.id;

  const A1 = admin.userId;
  const A2 = agent2.userId;
  const conv: Record<string, string> = {};
  const conversation = async (
    key: string,
    v: {
      ch: string;
      type: string;
      queue: string;
      created: string;
      assignee?: string;
      assignedAt?: string;
      firstResponse?: string;
      resolved?: string;
      subject?: string;
    },
  ): Promise<void> => {
    const id = randomUUID();
    conv[key] = id;
    await sql(
      t,
      `INSERT INTO conversations (id, workspace_id, contact_id, channel_id, channel_type, contact_external_id, status,
                                  queue_id, assignee_id, assigned_at, first_response_at, resolved_at, created_at, subject)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        id,
        ws,
        contact,
        v.ch,
        v.type,
        `ext-${key}`,
        v.resolved ? 'RESOLVED' : 'OPEN',
        v.queue,
        v.assignee ?? null,
        v.assignedAt ?? null,
        v.firstResponse ?? null,
        v.resolved ?? null,
        v.created,
        v.subject ?? `Subject ${key}`,
      ],
    );
  };
  const message = async (key: string, ch: string, direction: string, sender: string, at: string): Promise<void> => {
    await sql(
      t,
      `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status, created_at)
       VALUES ($1, $2, $3, $4, $5, 'TEXT', $6, $7, $8)`,
      [
        ws,
        conv[key],
        ch,
        direction,
        sender,
        `${key} ${sender} ${at}`,
        direction === 'INBOUND' ? 'RECEIVED' : 'SENT',
        at,
      ],
    );
  };

  await conversation('C0', {
    ch: chA,
    type: 'CUSTOM',
    queue: q1,
    created: '2026-03-27T12:00:00Z',
    assignee: A1,
    assignedAt: '2026-03-27T12:00:00Z',
  });
  await conversation('C7', {
    ch: chA,
    type: 'CUSTOM',
    queue: q1,
    created: '2026-03-20T10:00:00Z',
    resolved: '2026-03-21T10:00:00Z',
  });
  await conversation('C1', {
    ch: chA,
    type: 'CUSTOM',
    queue: q1,
    created: '2026-03-28T10:00:00Z',
    assignee: A1,
    assignedAt: '2026-03-28T10:00:00Z',
    firstResponse: '2026-03-28T10:01:00Z',
    resolved: '2026-03-28T11:00:00Z',
    subject: '-1 refund please',
  });
  await conversation('C2', {
    ch: chA,
    type: 'CUSTOM',
    queue: q2,
    created: '2026-03-29T01:30:00Z',
    assignee: A2,
    assignedAt: '2026-03-29T01:30:00Z',
    firstResponse: '2026-03-29T01:32:00Z',
  });
  await conversation('C3', { ch: chB, type: 'TELEGRAM', queue: q1, created: '2026-03-30T21:30:00Z' });
  await conversation('C4', {
    ch: chB,
    type: 'TELEGRAM',
    queue: q1,
    created: '2026-03-29T22:30:00Z',
    assignee: A1,
    assignedAt: '2026-03-29T22:30:00Z',
    firstResponse: '2026-03-29T22:40:00Z',
    resolved: '2026-03-30T00:30:00Z',
  });
  await conversation('C5', {
    ch: chA,
    type: 'CUSTOM',
    queue: q1,
    created: '2026-03-28T23:30:00Z',
    firstResponse: '2026-03-28T23:31:00Z',
    resolved: '2026-03-29T00:00:00Z',
  });
  await conversation('C6', {
    ch: chB,
    type: 'TELEGRAM',
    queue: q2,
    created: '2026-03-30T08:00:00Z',
    assignee: A2,
    assignedAt: '2026-03-30T08:02:00Z',
    firstResponse: '2026-03-30T08:01:00Z',
    resolved: '2026-03-30T09:00:00Z',
    subject: '@admin help',
  });

  await message('C0', chA, 'INBOUND', 'CONTACT', '2026-03-27T12:00:00Z');
  await message('C1', chA, 'INBOUND', 'CONTACT', '2026-03-28T10:00:00Z');
  await message('C1', chA, 'OUTBOUND', 'AGENT', '2026-03-28T10:01:00Z');
  await message('C1', chA, 'INBOUND', 'CONTACT', '2026-03-28T10:30:00Z');
  await message('C2', chA, 'INBOUND', 'CONTACT', '2026-03-29T01:30:00Z');
  await message('C2', chA, 'OUTBOUND', 'AGENT', '2026-03-29T01:32:00Z');
  await message('C3', chB, 'INBOUND', 'CONTACT', '2026-03-30T21:30:00Z');
  await message('C4', chB, 'INBOUND', 'CONTACT', '2026-03-29T22:30:00Z');
  await message('C4', chB, 'OUTBOUND', 'AGENT', '2026-03-29T22:40:00Z');
  await message('C5', chA, 'INBOUND', 'CONTACT', '2026-03-28T23:30:00Z');
  await message('C5', chA, 'OUTBOUND', 'AI', '2026-03-28T23:31:00Z');
  await message('C6', chB, 'INBOUND', 'CONTACT', '2026-03-30T08:00:00Z');
  await message('C6', chB, 'OUTBOUND', 'AI', '2026-03-30T08:01:00Z');
  await message('C6', chB, 'OUTBOUND', 'AGENT', '2026-03-30T08:05:00Z');

  // AI agent state (what the AI helper writes): C5 answered by the AI only, C6 handed off.
  await sql(t, `INSERT INTO ai_conversation_states (workspace_id, conversation_id, status) VALUES ($1, $2, 'ACTIVE')`, [
    ws,
    conv.C5,
  ]);
  await sql(
    t,
    `INSERT INTO ai_conversation_states (workspace_id, conversation_id, status, handed_off_at, handoff_reason)
     VALUES ($1, $2, 'HANDED_OFF', '2026-03-30T08:02:00Z', 'keyword')`,
    [ws, conv.C6],
  );

  // SLA records: C1 first response met / resolution breached; C2 both breached; C3 both pending.
  const sla = async (key: string, frDue: string, resDue: string): Promise<void> => {
    const created = (
      await sql<{ created_at: Date }>(t, `SELECT created_at FROM conversations WHERE id = $1`, [conv[key]])
    )[0]!.created_at;
    await sql(
      t,
      `INSERT INTO conversation_slas (workspace_id, conversation_id, policy_id, policy_name, conversation_created_at,
                                      first_response_due_at, resolution_due_at)
       VALUES ($1, $2, $3, 'Standard', $4, $5, $6)`,
      [ws, conv[key], randomUUID(), created, frDue, resDue],
    );
    // …and, like the SLA module (SlaService.applyToConversation), the due times on the conversation.
    await sql(t, `UPDATE conversations SET first_response_due_at = $2, resolution_due_at = $3 WHERE id = $1`, [
      conv[key],
      frDue,
      resDue,
    ]);
  };
  await sla('C1', '2026-03-28T10:05:00Z', '2026-03-28T10:30:00Z');
  await sla('C2', '2026-03-29T01:31:00Z', '2026-03-30T01:30:00Z');
  await sla('C3', '2099-01-01T00:00:00Z', '2099-01-02T00:00:00Z');

  // Tickets: T0 before the window (open), T1 resolved, T2 open, T3 closed.
  const ticket = async (
    n: number,
    v: { conv?: string; queue: string; created: string; status: string; priority: string; resolved?: string },
  ): Promise<void> => {
    await sql(
      t,
      `INSERT INTO tickets (workspace_id, number, key, subject, status, priority, source, queue_id, conversation_id,
                            created_at, resolved_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'MANUAL', $7, $8, $9, $10)`,
      [ws, n, `TCK-${n}`, `Ticket ${n}`, v.status, v.priority, v.queue, v.conv ?? null, v.created, v.resolved ?? null],
    );
  };
  await ticket(1000, { queue: q1, created: '2026-03-27T09:00:00Z', status: 'OPEN', priority: 'MEDIUM' });
  await ticket(1001, {
    conv: conv.C1,
    queue: q1,
    created: '2026-03-28T10:00:00Z',
    status: 'RESOLVED',
    priority: 'HIGH',
    resolved: '2026-03-28T12:00:00Z',
  });
  await ticket(1002, { conv: conv.C3, queue: q1, created: '2026-03-30T21:30:00Z', status: 'OPEN', priority: 'MEDIUM' });
  await ticket(1003, {
    queue: q2,
    created: '2026-03-29T05:00:00Z',
    status: 'CLOSED',
    priority: 'LOW',
    resolved: '2026-03-30T05:00:00Z',
  });

  // Presence: A1 ONLINE 30 min inside the window (from 22:00, window starts 23:00), 4 h, AWAY 1 h, 6 h.
  const presence = async (user: string, status: string, start: string, end: string): Promise<void> => {
    await sql(
      t,
      `INSERT INTO presence_intervals (workspace_id, user_id, status, started_at, ended_at) VALUES ($1, $2, $3, $4, $5)`,
      [ws, user, status, start, end],
    );
  };
  await presence(A1, 'ONLINE', '2026-03-27T22:00:00Z', '2026-03-27T23:30:00Z');
  await presence(A1, 'ONLINE', '2026-03-28T08:00:00Z', '2026-03-28T12:00:00Z');
  await presence(A1, 'AWAY', '2026-03-28T12:00:00Z', '2026-03-28T13:00:00Z');
  await presence(A1, 'ONLINE', '2026-03-29T20:00:00Z', '2026-03-30T02:00:00Z');
  await presence(A2, 'ONLINE', '2026-03-30T21:00:00Z', '2026-03-31T05:00:00Z');

  return { admin, agent2, chA, chB, q1, q2, conv: conv as Seeded['conv'] };
}
