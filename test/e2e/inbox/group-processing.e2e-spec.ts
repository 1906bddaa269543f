import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { TransactionHost } from 'src/core/database/transaction-host';
import { type DomainEvent, EventBus } from 'src/core/events/event-bus';
import { JobName } from 'src/core/queue/job-names';
import { JobQueueService } from 'src/core/queue/job-queue.service';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { ContactsService } from 'src/modules/contacts';
import { InboundPipeline } from 'src/modules/inbound';
import { InboundEventsRepository } from 'src/modules/inbound/events/inbound-events.repository';
import { InboundEventBatcher } from 'src/modules/inbound/pipeline/inbound-event-batcher';
import { ConversationsRepository } from 'src/modules/inbox/conversations.repository';
import { MessagesRepository } from 'src/modules/inbox/messages.repository';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import { type CustomChannel, connectCustom, eventReaches, inboxEnv, postCustom, sql } from './inbox-helpers';
import { MockPlatform } from './mock-platform';

/**
 * Group processing (issue 16 item 3): inbound events that wait in one process at the same time run in
 * one transaction. DESIGN §4.3 still holds: every message stored once, one sender's messages in
 * arrival order, a failing event retried and FAILED on its own. To make a group form for sure on
 * PostgreSQL, a test stage holds the first events ("hold") inside their transactions until every later
 * event has been handed over; then it lets go. The embedded engine has one session (an open
 * transaction would hold the acks back): there the events are stored as the webhook stores them and
 * their jobs queued in one go, two of which run at a time.
 */
const embedded = !process.env.DATABASE_URL;
describe('Inbound pipeline: events processed in groups', () => {
  let t: TestApp;
  let mock: MockPlatform;
  const sent: DomainEvent<'message.sent'>[] = [];
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock) });
    t.app.get(EventBus).subscribe('message.sent', (e) => {
      sent.push(e);
    });
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  async function setup(): Promise<{ admin: Session; channel: CustomChannel }> {
    const admin = await signupWorkspace(app(), 'Groups');
    await setPlan(app(), admin.workspaceId, 'ENTERPRISE');
    return { admin, channel: await connectCustom(app(), admin, mock) };
  }
  const app = (): TestApp => t;

  /**
   * A stage that records, per message text, the transaction it ran in; holds "hold" messages until
   * `release()`; throws for "explode". Returns the helpers and a cleanup.
   */
  function instrument(workspaceId: string) {
    const pipeline = t.app.get(InboundPipeline);
    const tx = t.app.get(TransactionHost);
    const seen: { text: string; xid: string }[] = [];
    let held = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    pipeline.register({
      name: 'test.groups',
      order: 997,
      run: async (ctx) => {
        if (ctx.workspaceId !== workspaceId) return 'continue';
        const text = ctx.message.text ?? '';
        const [row] = (await tx.manager.query('SELECT pg_current_xact_id()::text AS xid')) as { xid: string }[];
        seen.push({ text, xid: row!.xid });
        if (text.startsWith('hold')) {
          held++;
          await gate;
        }
        if (text === 'explode') throw new Error('stage exploded');
        return 'continue';
      },
    });
    return {
      seen,
      release: () => open(),
      cleanup: () => pipeline.unregister('test.groups'),
      /** Holds as many transactions as groups run at once, so the next events queue for a group. */
      hold: async (channel: CustomChannel) => {
        if (embedded) return;
        const batcher = t.app.get(InboundEventBatcher);
        // One at a time, so that each starts a group of its own. (A holder may also wait before the
        // stage, e.g. for an analytics slot row another holder's transaction has: it still holds its group.)
        for (let i = 0; i < batcher.groupsAtOnce; i++) {
          await postCustom(t, channel, { senderId: `holder-${i}`, text: `hold ${i}` }).expect(200);
          await eventually(async () => expect(batcher.runningCount).toBe(i + 1));
        }
        await eventually(async () => expect(held).toBeGreaterThan(0));
      },
      /** Sends `messages` one after the other (so their arrival order is known) and waits until all are handed over. */
      send: async (channel: CustomChannel, messages: { senderId: string; text: string }[]) => {
        if (embedded) return storeAndQueue(workspaceId, channel, messages);
        const batcher = t.app.get(InboundEventBatcher);
        const ids: string[] = [];
        for (const m of messages) ids.push((await postCustom(t, channel, m).expect(200)).body.eventId);
        // By id, not by count: the start-up recovery sweep may queue a RECEIVED event a second time
        // (another job id; its claim then finds it taken), which adds to the count.
        await eventually(async () => expect(ids.filter((id) => !batcher.isWaiting(id))).toEqual([]));
        return ids;
      },
    };
  }

  /** Stores the events as the webhook does (in this order), then queues their jobs at once. */
  async function storeAndQueue(
    workspaceId: string,
    channel: CustomChannel,
    messages: { senderId: string; text: string }[],
  ): Promise<string[]> {
    const ids: string[] = [];
    for (const m of messages) {
      const [row] = await sql<{ id: string }>(
        t,
        `INSERT INTO inbound_events (workspace_id, channel_id, channel_type, sender_key, payload)
         VALUES ($1, $2, 'CUSTOM', $3, $4) RETURNING id`,
        [workspaceId, channel.id, m.senderId, m],
      );
      ids.push(row!.id);
    }
    await t.app.get(JobQueueService).enqueueMany(
      JobName.InboundEventProcess,
      ids.map((eventId) => ({ data: { workspaceId, eventId }, options: { jobId: eventId } })),
    );
    return ids;
  }

  async function texts(conversationOfSender: { channelId: string; senderId: string }): Promise<string[]> {
    const rows = await sql<{ text: string }>(
      t,
      `SELECT m.text FROM messages m
         JOIN conversations c ON c.id = m.conversation_id
         JOIN contact_identities i ON i.contact_id = c.contact_id AND i.channel_id::text = c.channel_id::text
        WHERE c.channel_id = $1::uuid AND i.external_id = $2 AND m.direction = 'INBOUND'
        ORDER BY m.seq`,
      [conversationOfSender.channelId, conversationOfSender.senderId],
    );
    return rows.map((r) => r.text);
  }

  /** The sender's conversations on the channel, oldest first: status and inbound texts. */
  async function conversationsOf(channelId: string, senderId: string): Promise<{ status: string; texts: string[] }[]> {
    return sql<{ status: string; texts: string[] }>(
      t,
      `SELECT c.status, array_remove(array_agg(m.text ORDER BY m.seq), NULL) AS texts
         FROM conversations c
         JOIN contact_identities i ON i.contact_id = c.contact_id AND i.channel_id = c.channel_id::text
         LEFT JOIN messages m ON m.conversation_id = c.id AND m.direction = 'INBOUND'
        WHERE c.channel_id = $1::uuid AND i.external_id = $2
        GROUP BY c.id, c.status, c.created_at ORDER BY c.created_at, c.id`,
      [channelId, senderId],
    );
  }

  async function contactsOf(channelId: string, senderId: string): Promise<number> {
    const [row] = await sql<{ n: number }>(
      t,
      `SELECT count(*)::int AS n FROM contact_identities WHERE channel_id = $1 AND external_id = $2`,
      [channelId, senderId],
    );
    return row!.n;
  }

  /** One message per sender, processed before the test's group: contacts with an open conversation each. */
  async function knownSenders(admin: Session, channel: CustomChannel, senderIds: string[]): Promise<void> {
    for (const senderId of senderIds) {
      const res = await postCustom(t, channel, { senderId, text: `${senderId}-0` }).expect(200);
      await eventReaches(t, admin, channel.id, res.body.eventId as string);
    }
  }

  it('a group reads its known senders once; what an earlier event of the group changes is seen by the later ones', async () => {
    const { admin, channel } = await setup();
    await knownSenders(admin, channel, ['k1', 'k2']);
    const [k2Conversation] = await sql<{ id: string }>(
      t,
      `SELECT c.id FROM conversations c JOIN contact_identities i ON i.contact_id = c.contact_id
        WHERE c.channel_id = $1 AND i.external_id = 'k2'`,
      [channel.id],
    );
    const probe = instrument(admin.workspaceId);
    // Stages of the group's events that change what the look-up read: a contact renamed by its own
    // first message, another sender's open conversation resolved (both in the group's transaction).
    const names: Record<string, string | null> = {};
    const tx = t.app.get(TransactionHost);
    t.app.get(InboundPipeline).register({
      name: 'test.group-changes',
      order: 996,
      run: async (ctx) => {
        if (ctx.workspaceId !== admin.workspaceId) return 'continue';
        names[ctx.message.text ?? ''] = ctx.contact.name;
        if (ctx.message.text === 'k1-rename')
          await tx.manager.query(`UPDATE contacts SET name = 'Renamed' WHERE workspace_id = $1 AND id = $2`, [
            ctx.workspaceId,
            ctx.contact.id,
          ]);
        if (ctx.message.text === 'resolve-k2')
          await tx.manager.query(
            `UPDATE conversations SET status = 'RESOLVED', resolved_at = now() WHERE workspace_id = $1 AND id = $2`,
            [ctx.workspaceId, k2Conversation!.id],
          );
        return 'continue';
      },
    });
    const contacts = t.app.get(ContactsService);
    const resolve = jest.spyOn(contacts, 'resolveByIdentity');
    try {
      await probe.hold(channel);
      const ids = await probe.send(channel, [
        { senderId: 'k1', text: 'k1-rename' },
        { senderId: 'n', text: 'n-1' },
        { senderId: 'x', text: 'resolve-k2' },
        { senderId: 'n', text: 'n-2' },
        { senderId: 'k2', text: 'k2-1' },
        { senderId: 'k1', text: 'k1-2' },
      ]);
      probe.release();
      for (const id of ids) await eventReaches(t, admin, channel.id, id);

      // Two messages of one new sender in one group: one contact, one conversation.
      expect(await contactsOf(channel.id, 'n')).toBe(1);
      expect(await conversationsOf(channel.id, 'n')).toEqual([{ status: 'OPEN', texts: ['n-1', 'n-2'] }]);
      // A known sender's messages go to its open conversation; the rename by the first is seen by the second.
      expect(await conversationsOf(channel.id, 'k1')).toEqual([
        { status: 'OPEN', texts: ['k1-0', 'k1-rename', 'k1-2'] },
      ]);
      expect(names['k1-2']).toBe('Renamed');
      // A conversation resolved after the look-up (by an earlier event of the group) is not written to: a new one opens.
      expect(await conversationsOf(channel.id, 'k2')).toEqual([
        { status: 'RESOLVED', texts: ['k2-0'] },
        { status: 'OPEN', texts: ['k2-1'] },
      ]);
      if (t.app.get(InboundEventBatcher).groupsAtOnce > 1) {
        // PostgreSQL (one group for sure): all in one transaction, and the known senders' first
        // messages took their contact from the group's look-up, not from a find-or-create each.
        const xids = new Set(probe.seen.filter((s) => !s.text.startsWith('hold')).map((s) => s.xid));
        expect(xids.size).toBe(1);
        const resolved = resolve.mock.calls.map(([identity]) => identity.externalId);
        expect(resolved.filter((id) => id === 'k2')).toEqual([]);
        expect(resolved.filter((id) => id === 'k1').length).toBeLessThanOrEqual(1);
      }
    } finally {
      resolve.mockRestore();
      probe.release();
      probe.cleanup();
      t.app.get(InboundPipeline).unregister('test.group-changes');
    }
  });

  it('a burst from several senders is stored in fewer transactions, every message once, each sender in arrival order', async () => {
    const { admin, channel } = await setup();
    const probe = instrument(admin.workspaceId);
    try {
      await probe.hold(channel);
      const burst: { senderId: string; text: string }[] = [];
      for (let n = 1; n <= 4; n++)
        for (const s of ['a', 'b', 'c']) burst.push({ senderId: `s-${s}`, text: `${s}${n}` });
      const ids = await probe.send(channel, burst);
      probe.release();
      for (const id of ids) await eventReaches(t, admin, channel.id, id);

      // Fewer transactions than events: the processed events' rows carry the id of the transaction
      // that marked them (xmin); the stage saw several messages in one transaction.
      const [marks] = await sql<{ events: number; transactions: number }>(
        t,
        `SELECT count(*)::int AS events, count(DISTINCT xmin::text)::int AS transactions
           FROM inbound_events WHERE channel_id = $1 AND id = ANY($2::uuid[])`,
        [channel.id, ids],
      );
      expect(marks!.events).toBe(12);
      expect(marks!.transactions).toBeLessThan(12);
      const perXid = new Map<string, number>();
      for (const s of probe.seen) if (!s.text.startsWith('hold')) perXid.set(s.xid, (perXid.get(s.xid) ?? 0) + 1);
      expect(Math.max(...perXid.values())).toBeGreaterThan(1);

      const [stored] = await sql<{ n: number; distinct: number }>(
        t,
        `SELECT count(*)::int AS n, count(DISTINCT text)::int AS distinct FROM messages
          WHERE channel_id = $1 AND direction = 'INBOUND' AND text NOT LIKE 'hold%'`,
        [channel.id],
      );
      expect(stored).toEqual({ n: 12, distinct: 12 });
      for (const s of ['a', 'b', 'c'])
        expect(await texts({ channelId: channel.id, senderId: `s-${s}` })).toEqual([1, 2, 3, 4].map((n) => `${s}${n}`));
      // Each new conversation assigned and ticketed once (one per sender).
      const [conversations] = await sql<{ n: number }>(
        t,
        `SELECT count(*)::int AS n FROM conversations WHERE channel_id = $1`,
        [channel.id],
      );
      expect(conversations!.n).toBe(3 + (embedded ? 0 : t.app.get(InboundEventBatcher).groupsAtOnce));
    } finally {
      probe.release();
      probe.cleanup();
    }
  });

  it('an event that fails inside a group is retried and ends FAILED as before; the rest of the group is stored', async () => {
    const { admin, channel } = await setup();
    await knownSenders(admin, channel, ['k']);
    const probe = instrument(admin.workspaceId);
    try {
      await probe.hold(channel);
      // "y" is new: its conversation is opened in the group before the failing event, and rolled back with it.
      const [y1, exploding, ...rest] = await probe.send(channel, [
        { senderId: 'y', text: 'y1' },
        { senderId: 'x', text: 'explode' },
        { senderId: 'z', text: 'z1' },
        { senderId: 'y', text: 'y2' },
        { senderId: 'k', text: 'k1' },
      ]);
      const others = [y1!, ...rest];
      probe.release();
      const failed = await eventReaches(t, admin, channel.id, exploding!, 'FAILED');
      expect(failed).toMatchObject({ attempts: 3, error: 'stage exploded', outcome: null, messageId: null });
      for (const id of others) {
        const done = await eventReaches(t, admin, channel.id, id);
        expect(done).toMatchObject({ outcome: 'MESSAGE_STORED', attempts: 1, error: null });
      }
      // The first attempt ran in a group: another message was processed in its transaction (and rolled back with it).
      const firstTry = probe.seen.find((s) => s.text === 'explode')!;
      expect(probe.seen.filter((s) => s.xid === firstTry.xid && s.text !== 'explode').length).toBeGreaterThan(0);
      // Three attempts one at a time (plus the group runs that rolled back).
      expect(probe.seen.filter((s) => s.text === 'explode').length).toBeGreaterThan(3);
      expect(await texts({ channelId: channel.id, senderId: 'x' })).toEqual([]);
      expect(await texts({ channelId: channel.id, senderId: 'y' })).toEqual(['y1', 'y2']);
      expect(await texts({ channelId: channel.id, senderId: 'z' })).toEqual(['z1']);
      // Nothing of the rolled-back group is left over: one contact and one conversation per sender.
      expect(await contactsOf(channel.id, 'y')).toBe(1);
      expect(await conversationsOf(channel.id, 'y')).toEqual([{ status: 'OPEN', texts: ['y1', 'y2'] }]);
      expect(await conversationsOf(channel.id, 'k')).toEqual([{ status: 'OPEN', texts: ['k-0', 'k1'] }]);
    } finally {
      probe.release();
      probe.cleanup();
    }
  });

  it('a sender with an older unprocessed event outside the group keeps arrival order', async () => {
    const { admin, channel } = await setup();
    const probe = instrument(admin.workspaceId);
    try {
      await probe.hold(channel);
      // Stored and acknowledged earlier, its job not run yet (as after a crash, before the sweep).
      const [older] = await sql<{ id: string }>(
        t,
        `INSERT INTO inbound_events (workspace_id, channel_id, channel_type, sender_key, payload)
         VALUES ($1, $2, 'CUSTOM', 'late', $3) RETURNING id`,
        [admin.workspaceId, channel.id, { senderId: 'late', text: 'late0', messageId: 'late-0' }],
      );
      const ids = await probe.send(channel, [
        { senderId: 'late', text: 'late1' },
        { senderId: 'other', text: 'other1' },
        { senderId: 'late', text: 'late2' },
        { senderId: 'other', text: 'other2' },
      ]);
      probe.release();
      for (const id of [...ids, older!.id]) await eventReaches(t, admin, channel.id, id);
      expect(await texts({ channelId: channel.id, senderId: 'late' })).toEqual(['late0', 'late1', 'late2']);
      expect(await texts({ channelId: channel.id, senderId: 'other' })).toEqual(['other1', 'other2']);
      // Where all four waited together (PostgreSQL: several groups at once), the other sender's events
      // still went in one transaction while "late" went one at a time.
      if (t.app.get(InboundEventBatcher).groupsAtOnce > 1) {
        const other = probe.seen.filter((s) => s.text.startsWith('other'));
        expect(other[0]!.xid).toBe(other[1]!.xid);
      }
    } finally {
      probe.release();
      probe.cleanup();
    }
  });

  it("a known conversation's question and its answer stamp the conversation once (the question's stamp goes with the answer's)", async () => {
    const { admin, channel } = await setup();
    await t.http
      .post('/catalog')
      .set(admin.headers)
      .send({ name: 'Aurora Kettle', price: 11, currency: 'EUR' }) // not USD: the next test counts USD answers
      .expect(201);
    await t.http.post('/ai-agents').set(admin.headers).send({ name: 'Shop bot', provider: 'BUILTIN' }).expect(201);
    // The senders' conversations exist before the group, which reads them once and stores into them.
    for (const senderId of ['k-a', 'k-b']) {
      const ack = await postCustom(t, channel, { senderId, text: 'how much is the aurora kettle?' }).expect(200);
      await eventReaches(t, admin, channel.id, ack.body.eventId);
    }
    const probe = instrument(admin.workspaceId);
    const ownStamps = jest.spyOn(t.app.get(ConversationsRepository), 'stampInbound');
    try {
      await probe.hold(channel);
      const ids = await probe.send(channel, [
        { senderId: 'k-a', text: 'and the aurora kettle again?' },
        { senderId: 'k-b', text: 'aurora kettle price please' },
      ]);
      probe.release();
      for (const id of ids) await eventReaches(t, admin, channel.id, id);
      const rows = await sql<{ id: string; wrong: boolean; preview: string; messages: number }>(
        t,
        `SELECT c.id, c.last_message_preview AS preview,
                (SELECT count(*)::int FROM messages m WHERE m.conversation_id = c.id) AS messages,
                c.last_inbound_at IS DISTINCT FROM (SELECT max(m.created_at) FROM messages m
                                                     WHERE m.conversation_id = c.id AND m.direction = 'INBOUND')
                OR c.last_message_at IS DISTINCT FROM (SELECT max(m.created_at) FROM messages m
                                                        WHERE m.conversation_id = c.id) AS wrong
           FROM conversations c
           JOIN contact_identities i ON i.contact_id = c.contact_id AND i.channel_id::text = c.channel_id::text
          WHERE c.channel_id = $1::uuid AND i.external_id IN ('k-a', 'k-b')`,
        [channel.id],
      );
      expect(
        rows.map((r) => ({ messages: r.messages, wrong: r.wrong, answered: r.preview.includes('11 EUR') })),
      ).toEqual([
        { messages: 4, wrong: false, answered: true },
        { messages: 4, wrong: false, answered: true },
      ]);
      // The questions' stamps were written by their answers' statement, never on their own.
      const alone = ownStamps.mock.calls.flatMap(([list]) => list.map((x) => x.conversationId));
      expect(alone.filter((id) => rows.some((r) => r.id === id))).toEqual([]);
    } finally {
      ownStamps.mockRestore();
      probe.cleanup();
    }
  });

  it('a group of questions gets each its own answer: answered together, no mix-up between conversations or workspaces', async () => {
    const { admin, channel } = await setup();
    // Another workspace with the same products at other prices, asking at the same time.
    const other = await setup();
    const shop = (prices: [number, number, number]) =>
      ['Aurora Kettle', 'Nimbus Toaster', 'Orbit Lamp'].map((name, i) => ({ name, price: prices[i], currency: 'USD' }));
    for (const [session, prices] of [
      [admin, [11, 22, 33]],
      [other.admin, [91, 92, 93]],
    ] as const) {
      for (const item of shop([...prices])) await t.http.post('/catalog').set(session.headers).send(item).expect(201);
      await t.http.post('/ai-agents').set(session.headers).send({ name: 'Shop bot', provider: 'BUILTIN' }).expect(201);
    }
    const probe = instrument(admin.workspaceId);
    // Which delivery jobs the answers were queued as (a group's answers: one job for all of them).
    const queue = t.app.get(JobQueueService);
    const enqueue = jest.spyOn(queue, 'enqueue');
    const claims = jest.spyOn(t.app.get(MessagesRepository), 'claimManyForDelivery');
    const marks = jest.spyOn(t.app.get(MessagesRepository), 'markSent');
    const deliveryJobs = (): string[][] =>
      enqueue.mock.calls
        .filter(([name]) => name === JobName.OutboundMessageDeliver || name === JobName.OutboundMessagesDeliver)
        .map(([name, data]) =>
          name === JobName.OutboundMessagesDeliver
            ? (data as unknown as { deliveries: { messageId: string }[] }).deliveries.map((d) => d.messageId)
            : [(data as unknown as { messageId: string }).messageId],
        );
    try {
      await probe.hold(channel);
      const otherEvent = (
        await postCustom(t, other.channel, { senderId: 'q-z', text: 'how much is the aurora kettle?' }).expect(200)
      ).body.eventId as string;
      const ids = await probe.send(channel, [
        { senderId: 'q-a', text: 'how much is the aurora kettle?' },
        { senderId: 'q-b', text: 'how much is the nimbus toaster?' },
        { senderId: 'q-c', text: 'price of the orbit lamp?' },
        { senderId: 'q-a', text: 'and the orbit lamp?' },
      ]);
      probe.release();
      for (const id of ids) await eventReaches(t, admin, channel.id, id);
      await eventReaches(t, other.admin, other.channel.id, otherEvent);

      /** The sender's conversation as "in: text" / "AI: text", in order. */
      const thread = async (channelId: string, senderId: string): Promise<string[]> =>
        (
          await sql<{ direction: string; text: string }>(
            t,
            `SELECT m.direction, m.text FROM messages m
               JOIN conversations c ON c.id = m.conversation_id
               JOIN contact_identities i ON i.contact_id = c.contact_id AND i.channel_id::text = c.channel_id::text
              WHERE c.channel_id = $1::uuid AND i.external_id = $2 ORDER BY m.seq`,
            [channelId, senderId],
          )
        ).map((m) => `${m.direction === 'INBOUND' ? 'in' : 'AI'}: ${m.text}`);
      expect(await thread(channel.id, 'q-a')).toEqual([
        'in: how much is the aurora kettle?',
        expect.stringMatching(/^AI: .*Aurora Kettle.*11 USD/),
        'in: and the orbit lamp?',
        expect.stringMatching(/^AI: .*Orbit Lamp.*33 USD/),
      ]);
      expect(await thread(channel.id, 'q-b')).toEqual([
        'in: how much is the nimbus toaster?',
        expect.stringMatching(/^AI: .*Nimbus Toaster.*22 USD/),
      ]);
      expect(await thread(channel.id, 'q-c')).toEqual([
        'in: price of the orbit lamp?',
        expect.stringMatching(/^AI: .*Orbit Lamp.*33 USD/),
      ]);
      expect(await thread(other.channel.id, 'q-z')).toEqual([
        'in: how much is the aurora kettle?',
        expect.stringMatching(/^AI: .*Aurora Kettle.*91 USD/),
      ]);
      // Each conversation's last message is its last answer; the answers are sent once each.
      const [stamps] = await sql<{ wrong: number }>(
        t,
        `SELECT count(*)::int AS wrong FROM conversations c
          WHERE c.channel_id = $1 AND c.last_message_preview NOT LIKE '%USD%'
            AND EXISTS (SELECT 1 FROM messages m WHERE m.conversation_id = c.id AND m.sender_type = 'AI' AND m.text LIKE '%USD%')`,
        [channel.id],
      );
      expect(stamps!.wrong).toBe(0);
      // ...and its last inbound time its last question's.
      const [times] = await sql<{ wrong: number }>(
        t,
        `SELECT count(*)::int AS wrong FROM conversations c
          WHERE c.channel_id = $1 AND (
            c.last_inbound_at IS DISTINCT FROM (SELECT max(m.created_at) FROM messages m
                                                 WHERE m.conversation_id = c.id AND m.direction = 'INBOUND')
            OR c.last_message_at IS DISTINCT FROM (SELECT max(m.created_at) FROM messages m WHERE m.conversation_id = c.id))`,
        [channel.id],
      );
      expect(times!.wrong).toBe(0);
      await eventually(async () => {
        const sent = mock.requests.filter((r) => r.raw.includes(' USD'));
        expect(sent.length).toBe(5);
      });
      if (!embedded) {
        // The group answered its questions together, after each round: the first round's three
        // questions were all stored before any of their answers (one event per transaction would
        // have interleaved them), and q-a's second question after the first round's answers.
        const order = (
          await sql<{ text: string }>(
            t,
            `SELECT m.text FROM messages m WHERE m.channel_id = $1 AND m.text NOT LIKE 'hold%'
                AND (m.sender_type = 'CONTACT' OR m.text LIKE '%USD%') ORDER BY m.seq`,
            [channel.id],
          )
        ).map((m) => (m.text.includes('USD') ? 'answer' : m.text));
        expect(order.slice(0, 3).sort()).toEqual(
          ['how much is the aurora kettle?', 'how much is the nimbus toaster?', 'price of the orbit lamp?'].sort(),
        );
        expect(order.slice(3)).toEqual(['answer', 'answer', 'answer', 'and the orbit lamp?', 'answer']);
      }
      // Every answer (of the questions, not of the held messages) was queued once; on PostgreSQL the
      // first round's three answers (stored together) as ONE job, and that job sent all three (above).
      const answers = await sql<{ id: string; text: string }>(
        t,
        `SELECT m.id, m.text FROM messages m
          WHERE m.channel_id = $1 AND m.sender_type = 'AI' AND m.text LIKE '%USD%' ORDER BY m.seq`,
        [channel.id],
      );
      expect(answers).toHaveLength(4);
      const jobs = deliveryJobs().filter((ids) => ids.some((id) => answers.some((a) => a.id === id)));
      expect(jobs.flat().sort()).toEqual(answers.map((a) => a.id).sort());
      if (!embedded) {
        expect(jobs.map((ids) => ids.length)).toEqual([3, 1]);
        // ... and that job claimed its three replies in one statement, and marked them SENT in one.
        const claimed = claims.mock.calls.map(([ids]) => [...ids].sort());
        expect(claimed).toContainEqual([...jobs[0]!].sort());
        const marked = marks.mock.calls.map(([sends]) => sends.map((m) => m.message.id).sort());
        expect(marked).toContainEqual([...jobs[0]!].sort());
      }
      // Each answer is SENT with its own `message.sent` event, marked together or not.
      // (Counted as the bus's listeners see them: with no webhook taking it, an outbox row is deleted at relay.)
      await eventually(async () => {
        const rows = await sql<{ id: string; status: string }>(
          t,
          `SELECT m.id, m.delivery_status AS status FROM messages m WHERE m.id = ANY($1::uuid[])`,
          [answers.map((a) => a.id)],
        );
        expect(
          rows.map((r) => ({ status: r.status, events: sent.filter((e) => e.data.message?.id === r.id).length })),
        ).toEqual(answers.map(() => ({ status: 'SENT', events: 1 })));
      });
    } finally {
      claims.mockRestore();
      marks.mockRestore();
      enqueue.mockRestore();
      probe.release();
      probe.cleanup();
    }
  });

  it("a group's lock statement reads each sender's events through the sender index, however long the backlog", async () => {
    // Fails with the statement as a plain join: on a table without statistics (no ANALYZE yet; a
    // PostgreSQL with autovacuum off) it read every unprocessed event of the workspace per group.
    const { admin, channel } = await setup();
    const tx = t.app.get(TransactionHost);
    try {
      // 3,000 events waiting for a retry tomorrow (unprocessed, not due: neither returned nor swept),
      // then two due events of two senders.
      await sql(
        t,
        `INSERT INTO inbound_events (workspace_id, channel_id, channel_type, sender_key, payload, next_attempt_at)
         SELECT $1, $2, 'CUSTOM', 'backlog-' || g, '{}'::jsonb, now() + interval '1 day' FROM generate_series(1, 3000) g`,
        [admin.workspaceId, channel.id],
      );
      const due = await sql<{ seq: string; sender_key: string }>(
        t,
        `INSERT INTO inbound_events (workspace_id, channel_id, channel_type, sender_key, payload)
         SELECT $1, $2, 'CUSTOM', s, '{}'::jsonb FROM unnest(ARRAY['due-a', 'due-b']) s
         RETURNING seq::text, sender_key`,
        [admin.workspaceId, channel.id],
      );
      const senders = due.map((d) => ({ channelId: channel.id, senderKey: d.sender_key, maxSeq: d.seq }));

      // The statement as the repository sends it, caught on the transaction's manager.
      let call: unknown[] | undefined;
      const found = await runAsWorkspace(admin.workspaceId, () =>
        tx.run(async () => {
          const query = jest.spyOn(tx.manager, 'query');
          try {
            return await t.app.get(InboundEventsRepository).lockSendersAndFindPending(senders);
          } finally {
            call = query.mock.calls.find(([text]) => String(text).includes('pg_advisory_xact_lock'));
            query.mockRestore();
          }
        }),
      );
      expect(found.map((e) => e.senderKey)).toEqual(['due-a', 'due-b']);

      expect(call).toBeDefined();
      const [row] = await sql<{ 'QUERY PLAN': unknown }>(
        t,
        `EXPLAIN (FORMAT JSON) ${String(call![0])}`,
        call![1] as unknown[],
      );
      const plan = row!['QUERY PLAN'];
      const scans = planNodes(typeof plan === 'string' ? JSON.parse(plan) : plan).filter(
        (node) => node['Relation Name'] === 'inbound_events',
      );
      expect(scans.map((node) => `${String(node['Node Type'])} ${String(node['Index Name'])}`)).toEqual([
        'Index Scan inbound_events_sender_pending_idx',
      ]);
      expect(String(scans[0]!['Index Cond'])).toContain('sender_key');
    } finally {
      await sql(t, `DELETE FROM inbound_events WHERE workspace_id = $1 AND payload = '{}'::jsonb`, [admin.workspaceId]);
    }
  });
});

/** Every node of an EXPLAIN (FORMAT JSON) answer. */
function planNodes(explained: unknown): Record<string, unknown>[] {
  const nodes: Record<string, unknown>[] = [];
  const visit = (node: Record<string, unknown>): void => {
    nodes.push(node);
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) visit(child);
  };
  for (const entry of explained as { Plan: Record<string, unknown> }[]) visit(entry.Plan);
  return nodes;
}
