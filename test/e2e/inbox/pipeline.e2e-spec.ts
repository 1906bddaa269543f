import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventBus } from 'src/core/events/event-bus';
import { JobName } from 'src/core/queue/job-names';
import { JobQueueService } from 'src/core/queue/job-queue.service';
import {
  INBOUND_STARTUP_SWEEP_DELAY_MS,
  InboundPipeline,
  InboundRecoveryService,
  InboundStageOrder,
} from 'src/modules/inbound';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { OutboundRecoveryService } from 'src/modules/inbox';
import { OutboundDeliveryService } from 'src/modules/inbox/outbound/outbound-delivery.service';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import {
  type CustomChannel,
  connectCustom,
  conversationOfMessage,
  conversationSatisfies,
  eventReaches,
  inboxEnv,
  postCustom,
  sql,
} from './inbox-helpers';
import { MockPlatform } from './mock-platform';

describe('Inbound pipeline: stage order, failures and retries, crash recovery, history paging', () => {
  let t: TestApp;
  let mock: MockPlatform;
  const extraApps: TestApp[] = [];
  let startedAt = 0;
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock) });
    startedAt = Date.now();
  });
  afterAll(async () => {
    for (const app of extraApps) await app.close();
    await t.close();
    await mock.close();
  });

  async function setup(app: TestApp = t): Promise<{ admin: Session; channel: CustomChannel }> {
    const admin = await signupWorkspace(app, 'Pipeline');
    await setPlan(app, admin.workspaceId, 'ENTERPRISE');
    return { admin, channel: await connectCustom(app, admin, mock) };
  }

  /** Inserts an event the way the webhook stores it, without queueing it (as if the process died right after the 200). */
  async function storeWithoutJob(
    app: TestApp,
    admin: Session,
    channel: CustomChannel,
    payload: Record<string, unknown>,
    extra: { status?: string; processingMinutesAgo?: number; attempts?: number } = {},
  ): Promise<string> {
    const [row] = await sql<{ id: string }>(
      app,
      `INSERT INTO inbound_events (workspace_id, channel_id, channel_type, sender_key, payload, status, attempts, processing_started_at)
       VALUES ($1, $2, 'CUSTOM', $3, $4, $5, $6, now() - make_interval(mins => $7))
       RETURNING id`,
      [
        admin.workspaceId,
        channel.id,
        payload.senderId,
        payload,
        extra.status ?? 'RECEIVED',
        extra.attempts ?? 0,
        extra.processingMinutesAgo ?? 0,
      ],
    );
    return row!.id;
  }

  it('runs registered stages in their order, listeners hear the events after commit; the reply group stops at the first handler', async () => {
    const { admin, channel } = await setup();
    const log: string[] = [];
    const pipeline = t.app.get(InboundPipeline);
    const mine = (ws: string) => ws === admin.workspaceId;
    const bus = t.app.get(EventBus);
    bus.subscribe('conversation.created', (e) => void (mine(e.workspaceId) && log.push('event:conversation.created')));
    bus.subscribe('message.received', (e) => void (mine(e.workspaceId) && log.push('event:message.received')));
    const stage = (name: string, order: number, handles?: (text: string) => boolean, group?: 'reply') =>
      pipeline.register({
        name: `test.${name}`,
        order,
        group,
        run: async (ctx) => {
          if (!mine(ctx.workspaceId)) return 'continue';
          log.push(`${name}${ctx.conversationCreated ? '+new' : ''}`);
          return handles?.(ctx.message.text ?? '') ? 'handled' : 'continue';
        },
      });
    // Real stages (automatic ticket, automations, flows, …) hold some of these numbers: step them aside.
    const used: number[] = Object.values(InboundStageOrder);
    const real = pipeline.list().filter((s) => used.includes(s.order));
    for (const s of real) pipeline.unregister(s.name);
    // Registered out of order on purpose: the numbers decide.
    stage('suggestion', InboundStageOrder.SuggestedReply, () => true, 'reply');
    stage('webhooks', InboundStageOrder.Webhooks);
    stage('flow', InboundStageOrder.Flow, (text) => text.includes('keyword'), 'reply');
    stage('ticket', InboundStageOrder.Ticket);
    stage('ai', InboundStageOrder.AiAgent, (text) => !text.includes('no-ai'), 'reply');
    stage('automations', InboundStageOrder.Automations);
    stage('sla', InboundStageOrder.Sla);
    expect(() =>
      pipeline.register({ name: 'test.clash', order: InboundStageOrder.Ticket, run: async () => 'continue' }),
    ).toThrow(/clashes/);
    try {
      const first = await postCustom(t, channel, { senderId: 'p-1', text: 'keyword please', messageId: 'k-1' }).expect(
        200,
      );
      await eventReaches(t, admin, channel.id, first.body.eventId);
      // Listeners hear the events once the event's transaction has committed (DESIGN §15: the outbox).
      const heard = (name: string) => eventually(async () => expect(log).toContain(`event:${name}`));
      await heard('message.received');
      expect(log.splice(0)).toEqual([
        'sla+new',
        'ticket+new',
        'automations+new',
        'webhooks+new',
        'flow+new',
        'event:conversation.created',
        'event:message.received',
      ]);
      const second = await postCustom(t, channel, { senderId: 'p-1', text: 'hello' }).expect(200);
      await eventReaches(t, admin, channel.id, second.body.eventId);
      await heard('message.received');
      expect(log.splice(0)).toEqual([
        'sla',
        'ticket',
        'automations',
        'webhooks',
        'flow',
        'ai',
        'event:message.received',
      ]);
      const third = await postCustom(t, channel, { senderId: 'p-1', text: 'no-ai here' }).expect(200);
      await eventReaches(t, admin, channel.id, third.body.eventId);
      await heard('message.received');
      expect(log.splice(0).slice(-4)).toEqual(['flow', 'ai', 'suggestion', 'event:message.received']);
      // A redelivery runs nothing.
      const again = await postCustom(t, channel, { senderId: 'p-1', text: 'keyword please', messageId: 'k-1' }).expect(
        200,
      );
      expect((await eventReaches(t, admin, channel.id, again.body.eventId)).outcome).toBe('DUPLICATE');
      expect(log).toEqual([]);
    } finally {
      for (const name of ['suggestion', 'webhooks', 'flow', 'ticket', 'ai', 'automations', 'sla'])
        pipeline.unregister(`test.${name}`);
      for (const s of real) pipeline.register(s);
    }
  });

  it('retries a failing event with backoff, ends FAILED with the error and keeps nothing of it; an admin retry runs it again', async () => {
    const { admin, channel } = await setup();
    const pipeline = t.app.get(InboundPipeline);
    let broken = true;
    pipeline.register({
      name: 'test.exploding',
      order: 999,
      run: async (ctx) => {
        if (broken && ctx.message.text === 'explode') throw new Error('stage exploded');
        return 'continue';
      },
    });
    try {
      const ack = await postCustom(t, channel, { senderId: 'f-1', text: 'explode' }).expect(200);
      const failed = await eventReaches(t, admin, channel.id, ack.body.eventId, 'FAILED');
      expect(failed).toMatchObject({
        attempts: 3,
        error: 'stage exploded',
        outcome: null,
        messageId: null,
        nextAttemptAt: null,
      });
      const [none] = await sql<{ n: number }>(t, 'SELECT count(*)::int AS n FROM messages WHERE channel_id = $1', [
        channel.id,
      ]);
      expect(none!.n).toBe(0);
      const list = await t.http.get(`/channels/${channel.id}/events?status=failed`).set(admin.headers).expect(200);
      expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([ack.body.eventId]);
      expect(
        (await t.http.get(`/channels/${channel.id}/events?status=PROCESSED`).set(admin.headers).expect(200)).body.data,
      ).toEqual([]);
      await t.http.get(`/channels/${channel.id}/events?status=LOST`).set(admin.headers).expect(400);

      // A later message of the same sender is not held back by the failed one.
      const later = await postCustom(t, channel, { senderId: 'f-1', text: 'still here' }).expect(200);
      await eventReaches(t, admin, channel.id, later.body.eventId);

      broken = false;
      const retried = await t.http
        .post(`/channels/${channel.id}/events/${ack.body.eventId}/retry`)
        .set(admin.headers)
        .expect(200);
      expect(retried.body).toMatchObject({ id: ack.body.eventId, status: 'RECEIVED', attempts: 0 });
      const done = await eventReaches(t, admin, channel.id, ack.body.eventId);
      expect(done).toMatchObject({ outcome: 'MESSAGE_STORED', error: null, attempts: 1 });
      const conflict = await t.http
        .post(`/channels/${channel.id}/events/${ack.body.eventId}/retry`)
        .set(admin.headers)
        .expect(409);
      expect(conflict.body.code).toBe('invalid_transition');
      await t.http
        .post(`/channels/${channel.id}/events/7b0c8a4e-2f7e-4a53-9a53-0d3c7a1e9c11/retry`)
        .set(admin.headers)
        .expect(404);
    } finally {
      pipeline.unregister('test.exploding');
    }
  });

  it('the recovery sweep processes events stored but never queued, and releases ones stuck PROCESSING', async () => {
    // Let the app's own start-up sweep pass first, so only the sweep below can pick these events up.
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, startedAt + INBOUND_STARTUP_SWEEP_DELAY_MS + 500 - Date.now())),
    );
    const { admin, channel } = await setup();
    const lost = await storeWithoutJob(t, admin, channel, {
      senderId: 'crash-1',
      text: 'acknowledged, then the process died',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [before] = await sql<{ status: string }>(t, 'SELECT status FROM inbound_events WHERE id = $1', [lost]);
    expect(before!.status).toBe('RECEIVED');
    // The start-up sweep takes only events older than the service instance: this one came after it started.
    await t.app.get(InboundRecoveryService).onStartup();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [afterStartup] = await sql<{ status: string }>(t, 'SELECT status FROM inbound_events WHERE id = $1', [lost]);
    expect(afterStartup!.status).toBe('RECEIVED');
    const stuck = await storeWithoutJob(
      t,
      admin,
      channel,
      { senderId: 'crash-2', text: 'died mid-way' },
      { status: 'PROCESSING', processingMinutesAgo: 10, attempts: 1 },
    );

    const result = await t.app.get(InboundRecoveryService).sweep({ receivedOlderThanMs: 0 });
    expect(result.released).toBeGreaterThanOrEqual(1);
    expect(result.requeued).toBeGreaterThanOrEqual(2);
    const recovered = await eventReaches(t, admin, channel.id, lost);
    expect(recovered.outcome).toBe('MESSAGE_STORED');
    expect(await eventReaches(t, admin, channel.id, stuck)).toMatchObject({ outcome: 'MESSAGE_STORED', attempts: 2 });
    // Young events are left to their jobs by the periodic sweep.
    const young = await storeWithoutJob(t, admin, channel, { senderId: 'crash-3', text: 'just arrived' });
    await t.app.get(InboundRecoveryService).sweep();
    const [still] = await sql<{ status: string }>(t, 'SELECT status FROM inbound_events WHERE id = $1', [young]);
    expect(still!.status).toBe('RECEIVED');
  });

  it('the recovery sweep leaves an event whose job is still queued to that job (a backlog is not a loss)', async () => {
    const { admin, channel } = await setup();
    const waiting = await storeWithoutJob(t, admin, channel, { senderId: 'backlog-1', text: 'still in the queue' });
    // Its job as the acknowledgement queued it (the event's id), still waiting its turn: an hour's delay
    // stands for a long backlog (BullMQ on Redis, or in-process on the embedded engine).
    await t.app
      .get(JobQueueService)
      .enqueue(
        JobName.InboundEventProcess,
        { workspaceId: admin.workspaceId, eventId: waiting },
        { jobId: waiting, delayMs: 3_600_000 },
      );
    const lost = await storeWithoutJob(t, admin, channel, { senderId: 'backlog-2', text: 'its job was lost' });

    const result = await t.app.get(InboundRecoveryService).sweep({ receivedOlderThanMs: 0 });
    expect(result.stillQueued).toBeGreaterThanOrEqual(1);
    expect(result.requeued).toBeGreaterThanOrEqual(1);
    expect((await eventReaches(t, admin, channel.id, lost)).outcome).toBe('MESSAGE_STORED');
    // A second job would have run at once; the event still waits for its own.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [row] = await sql<{ status: string; attempts: number }>(
      t,
      'SELECT status, attempts FROM inbound_events WHERE id = $1',
      [waiting],
    );
    expect(row).toEqual({ status: 'RECEIVED', attempts: 0 });
  });

  it('a restarted service processes what the previous one acknowledged but never processed', async () => {
    // The first process is an `api` role: it runs no sweeps, so only the restarted one can recover the event.
    const first = await createTestApp({ env: inboxEnv(mock, { APP_ROLE: 'api' }) });
    const { admin, channel } = await setup(first);
    const eventId = await storeWithoutJob(first, admin, channel, {
      senderId: 'restart-1',
      text: 'sent just before the crash',
    });
    const databaseUrl = first.config.db.url ?? undefined;
    await first.close({ keepData: true });

    const second = await createTestApp({
      reuse: { dataDir: first.dataDir, databaseUrl },
      env: inboxEnv(mock, { ENCRYPTION_KEY: first.config.encryptionKey.toString('base64') }),
    });
    extraApps.push(second);
    const event = await eventReaches(second, admin, channel.id, eventId);
    expect(event.outcome).toBe('MESSAGE_STORED');
  });

  it('the outbound sweep delivers replies whose job was lost', async () => {
    const { admin, channel } = await setup();
    const ack = await postCustom(t, channel, { senderId: 'o-1', text: 'hi' }).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);
    const [message] = await sql<{ id: string }>(
      t,
      `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status)
       VALUES ($1, $2, $3, 'OUTBOUND', 'AGENT', 'TEXT', 'queued before a crash', 'PENDING') RETURNING id`,
      [admin.workspaceId, conversationId, channel.id],
    );
    mock.reset();
    await t.app.get(OutboundRecoveryService).sweep(0);
    await eventually(async () => expect(mock.received('/custom/outbound')).toHaveLength(1));
    expect(JSON.parse(mock.received('/custom/outbound')[0]!.raw).message).toEqual({
      type: 'TEXT',
      text: 'queued before a crash',
    });
    await conversationSatisfies(t, admin, conversationId, (c) => {
      expect(c.messages.find((m) => m.id === message!.id)!.deliveryStatus).toBe('SENT');
    });
  });

  it('a reply held back by an earlier pending one is queued when that one is sent (read in the sent statement)', async () => {
    const { admin, channel } = await setup();
    const ack = await postCustom(t, channel, { senderId: 'o-2', text: 'hi' }).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);
    const [first, second] = await sql<{ id: string }>(
      t,
      `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status)
       SELECT $1, $2, $3, 'OUTBOUND', 'AGENT', 'TEXT', 'reply ' || n, 'PENDING' FROM generate_series(1, 2) AS n ORDER BY n
       RETURNING id`,
      [admin.workspaceId, conversationId, channel.id],
    );
    mock.reset();
    const delivery = t.app.get(OutboundDeliveryService);
    // Without the conversation (as the recovery sweep's jobs): nothing here waits in order.
    expect(await runAsWorkspace(admin.workspaceId, () => delivery.deliver(second!.id))).toBe('skipped');
    expect(mock.received('/custom/outbound')).toHaveLength(0);
    expect(await runAsWorkspace(admin.workspaceId, () => delivery.deliver(first!.id))).toBe('sent');
    // The first one's SENT statement found the second waiting and queued it.
    await eventually(async () => expect(mock.received('/custom/outbound')).toHaveLength(2));
    expect(mock.received('/custom/outbound').map((r) => JSON.parse(r.raw).message.text)).toEqual([
      'reply 1',
      'reply 2',
    ]);
    await conversationSatisfies(t, admin, conversationId, (c) => {
      expect(c.messages.filter((m) => m.direction === 'OUTBOUND').map((m) => m.deliveryStatus)).toEqual([
        'SENT',
        'SENT',
      ]);
    });
  });

  it('shows the latest 100 messages oldest first, and older ones through messagesBefore', async () => {
    const { admin, channel } = await setup();
    const ack = await postCustom(t, channel, { senderId: 'h-1', text: 'message 1' }).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    const conversationId = await conversationOfMessage(t, event.messageId as string);
    await sql(
      t,
      `INSERT INTO messages (workspace_id, conversation_id, channel_id, direction, sender_type, type, text, delivery_status)
       SELECT $1, $2, $3, 'INBOUND', 'CONTACT', 'TEXT', 'message ' || n, 'RECEIVED' FROM generate_series(2, 105) AS n ORDER BY n`,
      [admin.workspaceId, conversationId, channel.id],
    );
    const latest = await t.http.get(`/conversations/${conversationId}`).set(admin.headers).expect(200);
    expect(latest.body.messages).toHaveLength(100);
    expect(latest.body.messages[0].text).toBe('message 6');
    expect(latest.body.messages[99].text).toBe('message 105');
    expect(latest.body.messagesBefore).toEqual(expect.any(String));
    const older = await t.http
      .get(`/conversations/${conversationId}`)
      .query({ messagesBefore: latest.body.messagesBefore })
      .set(admin.headers)
      .expect(200);
    expect(older.body.messages.map((m: { text: string }) => m.text)).toEqual([
      'message 1',
      'message 2',
      'message 3',
      'message 4',
      'message 5',
    ]);
    expect(older.body.messagesBefore).toBeNull();
    await t.http
      .get(`/conversations/${conversationId}`)
      .query({ messagesBefore: 'garbage' })
      .set(admin.headers)
      .expect(400);
  });
});
