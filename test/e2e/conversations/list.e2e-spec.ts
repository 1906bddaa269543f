import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Session } from '../../utils/sessions';
import { addMember } from '../../utils/sessions';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type CustomChannel, connectCustom, inboxEnv, sql } from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';
import { type Conversation, contactOn, enterprise, listIds } from './conversation-helpers';

const N = 250;

describe('GET /conversations: keyset paging by newest activity and every filter', () => {
  let t: TestApp;
  let mock: MockPlatform;
  let admin: Session;
  let agent: Session;
  let channel: CustomChannel;
  let channel2: CustomChannel;
  let ada: { id: string };
  let bob: { id: string };
  let queueId: string;
  let vipQueue: string;

  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock) });
    admin = await enterprise(t);
    agent = await addMember(t, admin, 'AGENT');
    channel = await connectCustom(t, admin, mock);
    channel2 = await connectCustom(t, admin, mock);
    ada = await contactOn(t, admin, channel.id, 'ada', 'Ada Lovelace');
    bob = (
      await t.http
        .post('/contacts')
        .set(admin.headers)
        .send({
          name: 'Bob',
          email: 'bob@Example.com',
          identities: [{ channelType: 'CUSTOM', channelId: channel2.id, externalId: 'bob' }],
        })
        .expect(201)
    ).body;
    const [q] = await sql<{ id: string }>(t, 'SELECT id FROM queues WHERE workspace_id = $1 AND is_default', [
      admin.workspaceId,
    ]);
    queueId = q!.id;
    vipQueue = (await t.http.post('/queues').set(admin.headers).send({ name: 'VIP', strategy: 'MANUAL' }).expect(201))
      .body.id;
    // 250 conversations, three per activity instant (ties are broken by id), created one hour apart.
    // i % 5 == 0: ON_HOLD; i % 7 == 0: RESOLVED; i % 4 == 0: HIGH; i % 10 == 0: tag 'vip', Bob on channel 2,
    // the VIP queue; i % 3 == 0: assigned to the agent.
    await sql(
      t,
      `INSERT INTO conversations (workspace_id, contact_id, channel_id, channel_type, contact_external_id, status, priority,
                                  queue_id, assignee_id, tags, last_message_at, created_at)
       SELECT $1, CASE WHEN i % 10 = 0 THEN $3::uuid ELSE $2::uuid END,
              CASE WHEN i % 10 = 0 THEN $5::uuid ELSE $4::uuid END, 'CUSTOM', 'x',
              CASE WHEN i % 7 = 0 THEN 'RESOLVED' WHEN i % 5 = 0 THEN 'ON_HOLD' ELSE 'OPEN' END,
              CASE WHEN i % 4 = 0 THEN 'HIGH' ELSE 'LOW' END,
              CASE WHEN i % 10 = 0 THEN $7::uuid ELSE $6::uuid END,
              CASE WHEN i % 3 = 0 THEN $8::uuid END,
              CASE WHEN i % 10 = 0 THEN ARRAY['vip'] ELSE ARRAY[]::text[] END,
              timestamptz '2026-01-01T00:00:00Z' + ((i / 3) * interval '1 second'),
              timestamptz '2025-01-01T00:00:00Z' + (i * interval '1 hour')
         FROM generate_series(1, ${N}) AS i`,
      [admin.workspaceId, ada.id, bob.id, channel.id, channel2.id, queueId, vipQueue, agent.userId],
    );
    // Message text to search for on conversation i = 17 (and a literal % on i = 18).
    await sql(
      t,
      `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status)
       SELECT c.workspace_id, c.id, c.channel_id, 'INBOUND', 'CONTACT', 'TEXT', m.text, 'RECEIVED'
         FROM conversations c
         JOIN (VALUES (timestamptz '2025-01-01T17:00:00Z', 'My BLUE teapot is cracked'),
                      (timestamptz '2025-01-01T18:00:00Z', 'a 100% refund')) AS m(at, text) ON c.created_at = m.at
        WHERE c.workspace_id = $1`,
      [admin.workspaceId],
    );
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  async function walk(s: Session, query: string, limit = 7, from: string | null = null): Promise<Conversation[]> {
    const seen: Conversation[] = [];
    let cursor: string | null = from;
    for (let page = 0; page < 200; page++) {
      const url = `/conversations?limit=${limit}${query ? `&${query}` : ''}${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await t.http.get(url).set(s.headers).expect(200);
      expect(res.body.data.length).toBeLessThanOrEqual(limit);
      seen.push(...res.body.data);
      cursor = res.body.nextCursor;
      if (!cursor) return seen;
    }
    throw new Error('too many pages');
  }

  /** The order the API must give: newest activity first, ties by id descending. */
  async function expected(where: string, params: unknown[] = []): Promise<string[]> {
    const rows = await sql<{ id: string }>(
      t,
      `SELECT id FROM conversations c WHERE workspace_id = $1 ${where ? `AND ${where}` : ''}
       ORDER BY last_message_at DESC, id DESC`,
      [admin.workspaceId, ...params],
    );
    return rows.map((r) => r.id);
  }

  it('walks 250 conversations 7 at a time: no gaps, no repeats, newest activity first', async () => {
    const all = await walk(admin, '');
    const ids = all.map((c) => c.id);
    expect(ids).toHaveLength(N);
    expect(new Set(ids).size).toBe(N);
    expect(ids).toEqual(await expected(''));
    const times = all.map((c) => Date.parse(c.lastMessageAt as string));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(all[0]!.contact).toEqual({ id: expect.any(String), name: expect.any(String) });
  });

  it('walks a filtered list the same way, and inserts during the walk do not disturb it', async () => {
    const first = await t.http.get('/conversations?limit=7&status=open').set(admin.headers).expect(200);
    await sql(
      t,
      `INSERT INTO conversations (workspace_id, contact_id, channel_id, channel_type, contact_external_id, status, queue_id, last_message_at)
       VALUES ($1, $2, $3, 'CUSTOM', 'x', 'OPEN', $4, now())`,
      [admin.workspaceId, ada.id, channel.id, queueId],
    );
    const rest = await walk(admin, 'status=open', 7, first.body.nextCursor);
    const ids = [...first.body.data, ...rest].map((c: Conversation) => c.id);
    const expectedIds = await expected(`status = 'OPEN' AND created_at < '2026-01-01'`);
    expect(ids).toEqual(expectedIds);
    await sql(t, `DELETE FROM conversations WHERE workspace_id = $1 AND created_at >= '2026-01-01'`, [
      admin.workspaceId,
    ]);
  });

  it('filters by status, priority (case-insensitive lists), assignee, queue, channel, contact, tag and from/to', async () => {
    const check = async (query: string, where: string, params: unknown[] = []): Promise<void> => {
      const got = (await walk(admin, query, 100)).map((c) => c.id);
      const want = await expected(where, params);
      expect([query, got.length]).toEqual([query, want.length]);
      expect(got).toEqual(want);
      expect(want.length).toBeGreaterThan(0);
    };
    await check('status=on_hold', `status = 'ON_HOLD'`);
    await check('status=open,Resolved', `status IN ('OPEN', 'RESOLVED')`);
    await check('status=OPEN&status=ON_HOLD', `status IN ('OPEN', 'ON_HOLD')`);
    await check('priority=high', `priority = 'HIGH'`);
    await check('priority=HIGH,low&status=resolved', `status = 'RESOLVED'`);
    await check(`assigneeId=${agent.userId}`, 'assignee_id = $2', [agent.userId]);
    await check('assigneeId=unassigned', 'assignee_id IS NULL');
    await check(`queueId=${vipQueue}`, 'queue_id = $2', [vipQueue]);
    await check(`channelId=${channel2.id}`, 'channel_id = $2', [channel2.id]);
    await check(`contactId=${bob.id}`, 'contact_id = $2', [bob.id]);
    await check('tag=VIP', `'vip' = ANY(tags)`);
    await check(
      'from=2025-01-02T00:00:00Z&to=2025-01-03T00:00:00.000Z',
      `created_at >= '2025-01-02' AND created_at < '2025-01-03'`,
    );
    await check(
      `tag=vip&status=on_hold&priority=high&assigneeId=unassigned`,
      `'vip' = ANY(tags) AND status = 'ON_HOLD' AND priority = 'HIGH' AND assignee_id IS NULL`,
    );
    expect(await listIds(t, agent, 'assigneeId=me')).toEqual(await expected('assignee_id = $2', [agent.userId]));
  });

  async function listIdsOf(s: Session, query: string): Promise<string[]> {
    return (await walk(s, query, 100)).map((c) => c.id);
  }

  it('searches contact name and email and message text, case-insensitively, literally', async () => {
    expect(await listIdsOf(admin, 'search=blue%20TEAPOT')).toEqual(
      await expected(`created_at = '2025-01-01T17:00:00Z'`),
    );
    expect(await listIdsOf(admin, 'search=100%25')).toEqual(await expected(`created_at = '2025-01-01T18:00:00Z'`));
    expect(await listIdsOf(admin, 'search=%25')).toEqual(await expected(`created_at = '2025-01-01T18:00:00Z'`));
    expect(await listIdsOf(admin, 'search=example.COM')).toEqual(await expected('contact_id = $2', [bob.id]));
    expect(await listIdsOf(admin, 'search=lovelace&status=resolved')).toEqual(
      await expected(`contact_id = $2 AND status = 'RESOLVED'`, [ada.id]),
    );
    expect(await listIdsOf(admin, 'search=nothing-like-this')).toEqual([]);
  });

  it('pages a rare search 3 at a time in list order: matches by contact, message and subject, each once', async () => {
    // Bob's 25 conversations match by contact email; a message saying "bob@example.com" in one of Ada's
    // (and a second one in a Bob conversation: one row, not two) and a subject on another one of Ada's.
    const [adaMsg, adaSubject] = await expected(`contact_id = $2 AND status = 'OPEN'`, [ada.id]);
    const [bobConv] = await expected('contact_id = $2', [bob.id]);
    await sql(
      t,
      `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status)
       SELECT workspace_id, id, channel_id, 'INBOUND', 'CONTACT', 'TEXT', 'mail me at BOB@example.com', 'RECEIVED'
         FROM conversations WHERE workspace_id = $1 AND id = ANY($2::uuid[])`,
      [admin.workspaceId, [adaMsg, bobConv]],
    );
    await sql(
      t,
      `UPDATE conversations SET subject = 'Forwarded from bob@example.com' WHERE workspace_id = $1 AND id = $2`,
      [admin.workspaceId, adaSubject],
    );
    try {
      const want = await expected(`(contact_id = $2 OR id = ANY($3::uuid[]))`, [bob.id, [adaMsg, adaSubject]]);
      expect(want).toHaveLength(27);
      const got = (await walk(admin, 'search=Bob%40EXAMPLE', 3)).map((c) => c.id);
      expect(got).toEqual(want);
      // The same search with another filter and as the AGENT: the id set meets the other conditions.
      expect((await walk(admin, 'search=bob%40example&status=on_hold', 2)).map((c) => c.id)).toEqual(
        await expected(`status = 'ON_HOLD' AND (contact_id = $2 OR id = ANY($3::uuid[]))`, [
          bob.id,
          [adaMsg, adaSubject],
        ]),
      );
      expect((await walk(agent, 'search=bob%40example', 4)).map((c) => c.id)).toEqual(
        await expected(
          `(assignee_id = $2 OR (assignee_id IS NULL AND queue_id = $3)) AND (contact_id = $4 OR id = ANY($5::uuid[]))`,
          [agent.userId, queueId, bob.id, [adaMsg, adaSubject]],
        ),
      );
    } finally {
      await sql(t, `DELETE FROM messages WHERE workspace_id = $1 AND text = 'mail me at BOB@example.com'`, [
        admin.workspaceId,
      ]);
      await sql(t, `UPDATE conversations SET subject = NULL WHERE workspace_id = $1`, [admin.workspaceId]);
    }
  });

  it('pages a frequent search (thousands of matching messages) the same way', async () => {
    // 2,500 matching messages: ten on each conversation whose i is not a multiple of 6 (~208 of them).
    await sql(
      t,
      `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status)
       SELECT c.workspace_id, c.id, c.channel_id, 'OUTBOUND', 'AGENT', 'TEXT', 'Your Parcel ' || n || ' left', 'SENT'
         FROM (SELECT *, row_number() OVER (ORDER BY created_at) AS i FROM conversations WHERE workspace_id = $1) c
         CROSS JOIN generate_series(1, 12) AS n
        WHERE c.i % 6 <> 0`,
      [admin.workspaceId],
    );
    try {
      const want = await expected(
        `EXISTS (SELECT 1 FROM messages m WHERE m.workspace_id = c.workspace_id AND m.conversation_id = c.id
                   AND m.text LIKE 'Your Parcel %')`,
      );
      expect(want.length).toBeGreaterThan(150);
      expect((await walk(admin, 'search=PARCEL', 25)).map((c) => c.id)).toEqual(want);
      expect((await walk(admin, 'search=parcel&priority=high', 9)).map((c) => c.id)).toEqual(
        await expected(
          `priority = 'HIGH' AND EXISTS (SELECT 1 FROM messages m WHERE m.workspace_id = c.workspace_id
             AND m.conversation_id = c.id AND m.text LIKE 'Your Parcel %')`,
        ),
      );
    } finally {
      await sql(t, `DELETE FROM messages WHERE workspace_id = $1 AND text LIKE 'Your Parcel %'`, [admin.workspaceId]);
    }
  });

  it('a search never reaches another workspace: its messages, subjects and contacts match only there', async () => {
    const other = await enterprise(t);
    const otherChannel = await connectCustom(t, other, mock);
    const fan = await contactOn(t, other, otherChannel.id, 'teapot-fan', 'Teapot Fan');
    const [theirs] = await sql<{ id: string }>(
      t,
      `INSERT INTO conversations (workspace_id, contact_id, channel_id, channel_type, contact_external_id, queue_id, subject)
       SELECT $1, $2, $3, 'CUSTOM', 'teapot-fan', q.id, 'blue teapot again'
         FROM queues q WHERE q.workspace_id = $1 AND q.is_default
       RETURNING id`,
      [other.workspaceId, fan.id, otherChannel.id],
    );
    await sql(
      t,
      `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status)
       VALUES ($1, $2, $3, 'INBOUND', 'CONTACT', 'TEXT', 'write to bob@example.com about lovelace', 'RECEIVED')`,
      [other.workspaceId, theirs!.id, otherChannel.id],
    );
    // Ours: the one message "My BLUE teapot is cracked"; theirs: the contact's name and the subject.
    expect(await listIdsOf(admin, 'search=teapot')).toEqual(await expected(`created_at = '2025-01-01T17:00:00Z'`));
    expect(await listIdsOf(other, 'search=teapot')).toEqual([theirs!.id]);
    expect(await listIdsOf(other, 'search=teapot%20fan')).toEqual([theirs!.id]);
    expect(await listIdsOf(other, 'search=ada%20lovelace')).toEqual([]);
    expect(await listIdsOf(other, 'search=example.com')).toEqual([theirs!.id]);
    expect(await listIdsOf(admin, 'search=teapot%20fan')).toEqual([]);
    expect(await listIdsOf(admin, 'search=about%20lovelace')).toEqual([]);
  });

  it('the AGENT sees only theirs and unassigned ones in their queues, through the same paging', async () => {
    // The agent is in the default queue (joined with the workspace), not in VIP.
    const got = (await walk(agent, '')).map((c) => c.id);
    const want = await expected('(assignee_id = $2 OR (assignee_id IS NULL AND queue_id = $3))', [
      agent.userId,
      queueId,
    ]);
    expect(got).toEqual(want);
    expect(got.length).toBeLessThan(N);
  });
});
