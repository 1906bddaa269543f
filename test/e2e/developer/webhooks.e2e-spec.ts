import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SlaBreachScheduler } from 'src/modules/sla';
import { WebhookDispatcher } from 'src/modules/developer/webhooks/webhook-dispatcher.service';
import { WebhookHttpClient } from 'src/modules/developer/webhooks/webhook-http.client';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { OutboundHttp } from 'src/core/http/outbound-http';
import { type TestApp, createTestApp, eventually, usingRedis } from '../../utils/test-app';
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
import { type Delivery, Receiver, verify } from './receiver';

/** DESIGN §10: every event name. */
const EVENTS = [
  'conversation.created',
  'conversation.updated',
  'conversation.resolved',
  'message.received',
  'message.sent',
  'message.failed',
  'ticket.created',
  'ticket.updated',
  'contact.created',
  'contact.updated',
  'sla.breached',
  'catalog.sync.completed',
  'catalog.sync.stopped',
  'csat.received',
  'webhook.test',
];

interface Hook {
  id: string;
  secret: string;
  path: string;
}

describe(`developer webhooks (${usingRedis() ? 'BullMQ' : 'in-process jobs'})`, () => {
  let t: TestApp;
  let mock: MockPlatform;
  let rx: Receiver;
  let n = 0;

  beforeAll(async () => {
    mock = await MockPlatform.start();
    rx = await Receiver.start();
    t = await createTestApp({
      env: inboxEnv(mock, { WEBHOOK_RETRY_DELAYS: '1,2,3', OUTBOUND_RETRY_DELAYS: '0.2' }),
    });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await mock?.close();
    await rx?.close();
  });

  async function enterprise(): Promise<Session> {
    const admin = await signupWorkspace(t, 'Enterprise');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
    return admin;
  }

  async function hook(s: Session, events: string[] = EVENTS.filter((e) => e !== 'webhook.test')): Promise<Hook> {
    const path = `/hook-${++n}`;
    const res = await t.http
      .post('/developer/webhooks')
      .set(s.headers)
      .send({ url: rx.url(path), events, description: 'test receiver' })
      .expect(201);
    return { id: res.body.id, secret: res.body.secret, path };
  }

  /** Waits for a verified delivery of `type` at the hook matching `match`; returns it. */
  async function delivered(
    h: Hook,
    type: string,
    match: (d: Delivery) => boolean = () => true,
    timeoutMs = 20_000,
  ): Promise<Delivery> {
    await t.drain();
    const d = await eventually(async () => {
      const found = rx.at(h.path).find((x) => x.body.type === type && match(x));
      if (!found) throw new Error(`no ${type} at ${h.path}`);
      return found;
    }, timeoutMs);
    verify(d, h.secret);
    return d;
  }

  async function inbound(admin: Session, channel: CustomChannel, message: Record<string, unknown>): Promise<string> {
    const ack = await postCustom(t, channel, message).expect(200);
    const event = await eventReaches(t, admin, channel.id, ack.body.eventId);
    expect(event.outcome).toBe('MESSAGE_STORED');
    return conversationOfMessage(t, event.messageId as string);
  }

  it('meta, CRUD, secret only at creation, unknown events 400 listing the valid ones, http(s) only', async () => {
    const admin = await signupWorkspace(t);
    const meta = (await t.http.get('/developer/meta').set(admin.headers).expect(200)).body;
    expect(meta.events.map((e: { name: string }) => e.name)).toEqual(EVENTS);
    expect(meta.docs).toBe('/docs');

    const created = await hook(admin, ['ticket.created']);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32,}$/);
    expect(Buffer.from(created.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    const one = (await t.http.get(`/developer/webhooks/${created.id}`).set(admin.headers).expect(200)).body;
    expect(one).toMatchObject({
      id: created.id,
      url: rx.url(created.path),
      events: ['ticket.created'],
      active: true,
      description: 'test receiver',
      failureCount: 0,
      disabledAt: null,
    });
    expect(one.secret).toBeUndefined();
    const list = (await t.http.get('/developer/webhooks').set(admin.headers).expect(200)).body;
    expect(list.data.map((w: { id: string }) => w.id)).toEqual([created.id]);
    expect(list.data[0].secret).toBeUndefined();
    expect(list.nextCursor).toBeNull();

    const bad = await t.http
      .post('/developer/webhooks')
      .set(admin.headers)
      .send({ url: rx.url('/x'), events: ['ticket.created', 'ticket.exploded'] })
      .expect(400);
    expect(bad.body.code).toBe('validation_failed');
    expect(JSON.stringify(bad.body.details)).toContain('ticket.exploded');
    expect(JSON.stringify(bad.body.details)).toContain('conversation.created');
    await t.http
      .post('/developer/webhooks')
      .set(admin.headers)
      .send({ url: 'ftp://example.com/x', events: ['ticket.created'] })
      .expect(400);

    const updated = await t.http
      .put(`/developer/webhooks/${created.id}`)
      .set(admin.headers)
      .send({ events: ['ticket.created', 'ticket.updated'], active: false })
      .expect(200);
    expect(updated.body).toMatchObject({ events: ['ticket.created', 'ticket.updated'], active: false });
    await t.http.delete(`/developer/webhooks/${created.id}`).set(admin.headers).expect(204);
    await t.http.get(`/developer/webhooks/${created.id}`).set(admin.headers).expect(404);
    const stored = await sql<{ secret: string }>(t, `SELECT secret FROM webhooks WHERE workspace_id = $1`, [
      admin.workspaceId,
    ]);
    expect(stored).toEqual([]);
  });

  it('secrets are encrypted at rest; permissions: developer.manage; another workspace sees nothing', async () => {
    const a = await signupWorkspace(t);
    const b = await signupWorkspace(t);
    const h = await hook(a, ['contact.created']);
    const [row] = await sql<{ secret: string }>(t, `SELECT secret FROM webhooks WHERE id = $1`, [h.id]);
    expect(row!.secret).not.toContain(h.secret.slice(6, 20));

    const agent = await addMember(t, a, 'AGENT');
    await t.http.get('/developer/webhooks').set(agent.headers).expect(403);
    await t.http
      .post('/developer/webhooks')
      .set(agent.headers)
      .send({ url: rx.url('/x'), events: ['ticket.created'] })
      .expect(403);
    await t.http.post(`/developer/webhooks/${h.id}/test`).set(agent.headers).expect(403);
    await t.http.get(`/developer/webhooks/${h.id}/deliveries`).set(agent.headers).expect(403);

    for (const [method, path] of [
      ['get', `/developer/webhooks/${h.id}`],
      ['put', `/developer/webhooks/${h.id}`],
      ['delete', `/developer/webhooks/${h.id}`],
      ['get', `/developer/webhooks/${h.id}/deliveries`],
      ['post', `/developer/webhooks/${h.id}/test`],
      ['post', `/developer/webhooks/${h.id}/rotate-secret`],
    ] as const) {
      await t.http[method](path).set(b.headers).send({}).expect(404);
    }
    expect((await t.http.get('/developer/webhooks').set(b.headers).expect(200)).body.data).toEqual([]);

    // B's contact never reaches A's webhook; A's does.
    await t.http.post('/contacts').set(b.headers).send({ name: 'Bea' }).expect(201);
    const mine = await t.http.post('/contacts').set(a.headers).send({ name: 'Ann' }).expect(201);
    const d = await delivered(h, 'contact.created');
    expect(d.body.workspaceId).toBe(a.workspaceId);
    expect(d.body.data.contact.id).toBe(mine.body.id);
    await new Promise((r) => setTimeout(r, 500));
    expect(rx.at(h.path).every((x) => x.body.workspaceId === a.workspaceId)).toBe(true);
    const log = (await t.http.get(`/developer/webhooks/${h.id}/deliveries`).set(a.headers).expect(200)).body;
    expect(log.data).toHaveLength(1);
    const [deliveryId] = log.data.map((x: { id: string }) => x.id);
    await t.http.post(`/developer/webhooks/${h.id}/deliveries/${deliveryId}/redeliver`).set(b.headers).expect(404);
  });

  describe('every event fires from where it happens, as verified Standard Webhooks deliveries', () => {
    let admin: Session;
    let h: Hook;
    let channel: CustomChannel;
    let conversationId: string;

    beforeAll(async () => {
      admin = await enterprise();
      h = await hook(admin);
      channel = await connectCustom(t, admin, mock);
      conversationId = await inbound(admin, channel, { senderId: 'wh-1', senderName: 'Wendy', text: 'Hello there' });
    }, 120_000);

    it('conversation.created: inbound pipeline and POST /conversations', async () => {
      const d = await delivered(h, 'conversation.created', (x) => x.body.data.conversation.id === conversationId);
      const rest = (await t.http.get(`/conversations/${conversationId}`).set(admin.headers).expect(200)).body;
      expect(d.body.data.conversation).toMatchObject({
        id: conversationId,
        status: rest.status,
        channelId: channel.id,
      });
      expect(d.body.data.contact).toMatchObject({ name: 'Wendy', created: true });

      const contact = await t.http
        .post('/contacts')
        .set(admin.headers)
        .send({ name: 'Otto', identities: [{ channelType: 'CUSTOM', channelId: channel.id, externalId: 'wh-api' }] })
        .expect(201);
      const started = await t.http
        .post('/conversations')
        .set(admin.headers)
        .send({ channelId: channel.id, contactId: contact.body.id })
        .expect(201);
      await delivered(h, 'conversation.created', (x) => x.body.data.conversation.id === started.body.id);
    });

    it('message.received: inbound pipeline', async () => {
      const d = await delivered(h, 'message.received', (x) => x.body.data.conversation.id === conversationId);
      expect(d.body.data.message).toMatchObject({ text: 'Hello there', direction: 'INBOUND' });
    });

    it('message.sent: an agent reply delivered by the outbound job', async () => {
      const reply = await t.http
        .post(`/conversations/${conversationId}/messages`)
        .set(admin.headers)
        .send({ text: 'How can I help?' })
        .expect(201);
      const d = await delivered(h, 'message.sent', (x) => x.body.data.message.id === reply.body.id);
      expect(d.body.data).toMatchObject({
        conversationId,
        message: { text: 'How can I help?', deliveryStatus: 'SENT' },
      });
    });

    it('message.failed: the outbound job after its last attempt', async () => {
      mock.fail('/custom/outbound', 10, 500);
      const reply = await t.http
        .post(`/conversations/${conversationId}/messages`)
        .set(admin.headers)
        .send({ text: 'This one fails' })
        .expect(201);
      const d = await delivered(h, 'message.failed', (x) => x.body.data.message.id === reply.body.id);
      expect(d.body.data.message.deliveryStatus).toBe('FAILED');
    });

    it('ticket.created: the automatic ticket (pipeline) and POST /tickets; ticket.updated: PUT /tickets/:id', async () => {
      const auto = await delivered(h, 'ticket.created', (x) => x.body.data.ticket.conversationId === conversationId);
      expect(auto.body.data.ticket.source).toBe('CONVERSATION');
      const manual = await t.http.post('/tickets').set(admin.headers).send({ subject: 'Manual work' }).expect(201);
      const d = await delivered(h, 'ticket.created', (x) => x.body.data.ticket.id === manual.body.id);
      expect(d.body.data.ticket).toEqual(manual.body);
      const put = await t.http
        .put(`/tickets/${manual.body.id}`)
        .set(admin.headers)
        .send({ status: 'RESOLVED' })
        .expect(200);
      const u = await delivered(h, 'ticket.updated', (x) => x.body.data.ticket.id === manual.body.id);
      expect(u.body.data).toEqual({ ticket: put.body, changes: expect.arrayContaining(['status', 'resolvedAt']) });
    });

    it('conversation.updated: PUT /conversations/:id; conversation.resolved: wrap-up (and its ticket.updated job)', async () => {
      const put = await t.http
        .put(`/conversations/${conversationId}`)
        .set(admin.headers)
        .send({ priority: 'HIGH' })
        .expect(200);
      const u = await delivered(
        h,
        'conversation.updated',
        (x) => x.body.data.conversationId === conversationId && x.body.data.change === 'updated',
      );
      expect(u.body.data.conversation).toEqual(put.body);
      expect(u.body.data.changes).toEqual(['priority']);
      await t.http.post(`/conversations/${conversationId}/wrap-up`).set(admin.headers).send({}).expect(200);
      const r = await delivered(h, 'conversation.resolved', (x) => x.body.data.conversationId === conversationId);
      expect(r.body.data.conversation.status).toBe('RESOLVED');
    });

    it('contact.created / contact.updated: API, inbound pipeline and CSV import', async () => {
      await delivered(h, 'contact.created', (x) => x.body.data.contact.name === 'Wendy');
      const c = await t.http.post('/contacts').set(admin.headers).send({ name: 'Carl' }).expect(201);
      await delivered(h, 'contact.created', (x) => x.body.data.contact.id === c.body.id);
      const put = await t.http.put(`/contacts/${c.body.id}`).set(admin.headers).send({ name: 'Carl B' }).expect(200);
      const u = await delivered(h, 'contact.updated', (x) => x.body.data.contact.id === c.body.id);
      expect(u.body.data.contact).toEqual(put.body);
      await t.http
        .post('/contacts/import')
        .set(admin.headers)
        .attach('file', Buffer.from('name,email\nImported Ida,ida@example.com\n'), {
          filename: 'c.csv',
          contentType: 'text/csv',
        })
        .expect(200);
      const i = await delivered(h, 'contact.created', (x) => x.body.data.contact.email === 'ida@example.com');
      expect(i.body.data.contact.name).toBe('Imported Ida');
    });

    it('sla.breached: the breach timer', async () => {
      await t.http
        .post('/sla/policies')
        .set(admin.headers)
        .send({ name: 'Everything', firstResponseMinutes: 10, resolutionMinutes: 100 })
        .expect(201);
      const late = await inbound(admin, channel, { senderId: 'wh-sla', text: 'Anyone?' });
      await sql(
        t,
        `UPDATE conversation_slas SET first_response_due_at = now() - interval '1 minute' WHERE conversation_id = $1`,
        [late],
      );
      await sql(t, `UPDATE conversations SET first_response_due_at = now() - interval '1 minute' WHERE id = $1`, [
        late,
      ]);
      await t.app.get(SlaBreachScheduler).checkBreaches();
      const d = await delivered(h, 'sla.breached', (x) => x.body.data.conversationId === late);
      expect(d.body.data).toMatchObject({ target: 'FIRST_RESPONSE', policyName: 'Everything' });
    });

    it('catalog.sync.completed and catalog.sync.stopped: the website sync job', async () => {
      const site = await t.http
        .post('/catalog/websites')
        .set(admin.headers)
        .send({ name: 'Shop', url: rx.url('/shop?page={page}'), intervalMinutes: 60 })
        .expect(201);
      const sync = await t.http.post(`/catalog/websites/${site.body.id}/sync`).set(admin.headers).send({}).expect(202);
      const runId = sync.body.id ?? sync.body.runId;
      const d = await delivered(h, 'catalog.sync.completed', (x) => x.body.data.websiteId === site.body.id, 30_000);
      expect(d.body.data.run).toMatchObject({ websiteId: site.body.id, status: 'SUCCESS', created: 4 });
      if (runId) expect(d.body.data.run.id).toBe(runId);
      // 3 of 4 products gone: the off-sale guard stops the run.
      rx.shopItems = 1;
      await t.http.post(`/catalog/websites/${site.body.id}/sync`).set(admin.headers).send({}).expect(202);
      const s = await delivered(h, 'catalog.sync.stopped', (x) => x.body.data.websiteId === site.body.id, 30_000);
      expect(s.body.data).toMatchObject({ run: { status: 'GUARD_STOPPED' }, wouldTakeOffSale: 3, onSale: 4 });
      rx.shopItems = 4;
    });

    it('csat.received: POST /csat', async () => {
      const rated = await t.http
        .post('/csat')
        .set(admin.headers)
        .send({ conversationId, score: 5, comment: 'Great help' })
        .expect(201);
      const d = await delivered(h, 'csat.received', (x) => x.body.data.conversationId === conversationId);
      expect(d.body.data).toEqual(rated.body);
    });

    it('webhook.test: POST /developer/webhooks/:id/test → 200 {delivered, statusCode, durationMs, error}, logged', async () => {
      const res = await t.http.post(`/developer/webhooks/${h.id}/test`).set(admin.headers).expect(200);
      expect(res.body).toEqual({ delivered: true, statusCode: 200, durationMs: expect.any(Number), error: null });
      const d = await delivered(h, 'webhook.test');
      expect(d.body.data.webhookId).toBe(h.id);
      const log = await t.http
        .get(`/developer/webhooks/${h.id}/deliveries?eventType=webhook.test`)
        .set(admin.headers)
        .expect(200);
      expect(log.body.data).toEqual([
        {
          id: expect.any(String),
          eventId: d.body.id,
          eventType: 'webhook.test',
          attempt: 1,
          status: 'SUCCEEDED',
          statusCode: 200,
          durationMs: expect.any(Number),
          error: null,
          responseExcerpt: 'ok',
          createdAt: expect.any(String),
          nextAttemptAt: null,
        },
      ]);
    });

    it('the delivery log: every event delivered once, keyset pages, filters', async () => {
      await t.drain();
      const all: Record<string, unknown>[] = [];
      let cursor: string | null = null;
      do {
        const res: { body: { data: Record<string, unknown>[]; nextCursor: string | null } } = await t.http
          .get(`/developer/webhooks/${h.id}/deliveries?limit=5${cursor ? `&cursor=${cursor}` : ''}`)
          .set(admin.headers)
          .expect(200);
        all.push(...res.body.data);
        cursor = res.body.nextCursor;
      } while (cursor);
      expect(all.length).toBeGreaterThanOrEqual(15);
      expect(new Set(all.map((d) => d.id)).size).toBe(all.length);
      const ids = rx.at(h.path).map((d) => d.body.id);
      expect(new Set(ids).size).toBe(ids.length);
      const failed = await t.http
        .get(`/developer/webhooks/${h.id}/deliveries?status=FAILED`)
        .set(admin.headers)
        .expect(200);
      expect(failed.body.data).toEqual([]);
      await t.http.get(`/developer/webhooks/${h.id}/deliveries?status=LOST`).set(admin.headers).expect(400);
      await t.http.get(`/developer/webhooks/${h.id}/deliveries?limit=101`).set(admin.headers).expect(400);
    });
  });

  it('retries on the schedule (shortened) with the same webhook-id, then redelivery sends the same event again', async () => {
    const admin = await signupWorkspace(t);
    const h = await hook(admin, ['contact.created']);
    rx.answer(h.path, 500);
    const c = await t.http.post('/contacts').set(admin.headers).send({ name: 'Retry Rita' }).expect(201);
    await eventually(async () => expect(rx.at(h.path)).toHaveLength(4), 30_000);
    const attempts = rx.at(h.path);
    for (const a of attempts) verify(a, h.secret);
    expect(new Set(attempts.map((a) => a.headers['webhook-id']))).toEqual(new Set([attempts[0]!.body.id]));
    expect(attempts[0]!.body.data.contact.id).toBe(c.body.id);
    const gaps = attempts.slice(1).map((a, i) => a.at - attempts[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(900);
    expect(gaps[1]).toBeGreaterThanOrEqual(1900);
    expect(gaps[2]).toBeGreaterThanOrEqual(2900);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(rx.at(h.path)).toHaveLength(4);

    const log = (await t.http.get(`/developer/webhooks/${h.id}/deliveries`).set(admin.headers).expect(200)).body.data;
    expect(log.map((d: { attempt: number }) => d.attempt)).toEqual([4, 3, 2, 1]);
    expect(
      log.every((d: { status: string; statusCode: number }) => d.status === 'FAILED' && d.statusCode === 500),
    ).toBe(true);
    expect(log[0].nextAttemptAt).toBeNull();
    expect(log[1].nextAttemptAt).not.toBeNull();
    expect(log[0].responseExcerpt).toBe('no (500)');
    const webhook = (await t.http.get(`/developer/webhooks/${h.id}`).set(admin.headers).expect(200)).body;
    expect(webhook).toMatchObject({ failureCount: 4, active: true, disabledAt: null });

    rx.answer(h.path, 200);
    const again = await t.http
      .post(`/developer/webhooks/${h.id}/deliveries/${log[0].id}/redeliver`)
      .set(admin.headers)
      .expect(202);
    expect(again.body).toMatchObject({ eventId: log[0].eventId, attempt: 1, status: 'PENDING' });
    await eventually(async () => expect(rx.at(h.path)).toHaveLength(5), 15_000);
    const last = rx.at(h.path)[4]!;
    verify(last, h.secret);
    expect(last.body.id).toBe(attempts[0]!.body.id);
    await eventually(async () => {
      const w = (await t.http.get(`/developer/webhooks/${h.id}`).set(admin.headers).expect(200)).body;
      expect(w.failureCount).toBe(0);
    });
  });

  it('410 Gone disables at once; PUT {active: true} re-enables and resets the count', async () => {
    const admin = await signupWorkspace(t);
    const h = await hook(admin, ['contact.created']);
    rx.answer(h.path, 410);
    await t.http.post('/contacts').set(admin.headers).send({ name: 'Gone Gina' }).expect(201);
    await eventually(async () => {
      const w = (await t.http.get(`/developer/webhooks/${h.id}`).set(admin.headers).expect(200)).body;
      expect(w).toMatchObject({ active: false, failureCount: 1, disabledAt: expect.any(String) });
    }, 15_000);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(rx.at(h.path)).toHaveLength(1);
    const unheard = await t.http.post('/contacts').set(admin.headers).send({ name: 'Unheard' }).expect(201);
    // Relayed while the webhook is disabled: no delivery is made for it, and the outbox row no webhook
    // took is deleted at relay (it was written: the POST answered after its transaction committed).
    await eventually(async () => {
      const rows = await sql(t, `SELECT 1 FROM event_outbox WHERE workspace_id = $1 AND data->'contact'->>'id' = $2`, [
        admin.workspaceId,
        unheard.body.id,
      ]);
      expect(rows).toHaveLength(0);
    }, 15_000);
    rx.answer(h.path, 200);
    const on = await t.http.put(`/developer/webhooks/${h.id}`).set(admin.headers).send({ active: true }).expect(200);
    expect(on.body).toMatchObject({ active: true, failureCount: 0, disabledAt: null });
    await t.http.post('/contacts').set(admin.headers).send({ name: 'Heard' }).expect(201);
    await delivered(h, 'contact.created', (x) => x.body.data.contact.name === 'Heard');
    expect(rx.at(h.path).some((x) => x.body.data.contact.name === 'Unheard')).toBe(false);
  });

  it('50 consecutive failures disable the webhook', async () => {
    const admin = await signupWorkspace(t);
    const h = await hook(admin, ['contact.created']);
    rx.answer(h.path, 503);
    await sql(t, `UPDATE webhooks SET failure_count = 48 WHERE id = $1`, [h.id]);
    await t.http.post('/contacts').set(admin.headers).send({ name: 'Fail 49' }).expect(201);
    await eventually(async () => {
      const w = (await t.http.get(`/developer/webhooks/${h.id}`).set(admin.headers).expect(200)).body;
      expect(w).toMatchObject({ active: false, failureCount: 50, disabledAt: expect.any(String) });
    }, 20_000);
    expect(rx.at(h.path)).toHaveLength(2);
  });

  it('rotate-secret: a new secret once; for 24 h deliveries verify with both the old and the new secret', async () => {
    const admin = await signupWorkspace(t);
    const h = await hook(admin, ['contact.created']);
    const rotated = await t.http.post(`/developer/webhooks/${h.id}/rotate-secret`).set(admin.headers).expect(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(h.secret);
    await t.http.post('/contacts').set(admin.headers).send({ name: 'Rot' }).expect(201);
    const d = await delivered({ ...h, secret: rotated.body.secret }, 'contact.created');
    verify(d, rotated.body.secret, h.secret);
    expect(String(d.headers['webhook-signature']).split(' ')).toHaveLength(2);
    await sql(t, `UPDATE webhooks SET previous_secret_expires_at = now() - interval '1 second' WHERE id = $1`, [h.id]);
    await t.http.post('/contacts').set(admin.headers).send({ name: 'Rot 2' }).expect(201);
    const later = await delivered(
      { ...h, secret: rotated.body.secret },
      'contact.created',
      (x) => x.body.data.contact.name === 'Rot 2',
    );
    expect(String(later.headers['webhook-signature']).split(' ')).toHaveLength(1);
  });

  it('a slow receiver does not hold up another webhook', async () => {
    const admin = await signupWorkspace(t);
    const slow = await hook(admin, ['contact.created']);
    const fast = await hook(admin, ['contact.created']);
    rx.delay(slow.path, 4_000);
    const started = Date.now();
    await t.http.post('/contacts').set(admin.headers).send({ name: 'Both' }).expect(201);
    await eventually(async () => expect(rx.at(fast.path)).toHaveLength(1), 5_000);
    expect(Date.now() - started).toBeLessThan(4_000);
    // The slow one is in flight at the same time; let it finish so it does not spill into the next test.
    await eventually(async () => expect(rx.at(slow.path)).toHaveLength(1), 5_000);
    await new Promise((r) => setTimeout(r, 4_500));
  });

  it('safety: private and loopback addresses are refused at delivery time unless allowed; no redirects', async () => {
    const strict = { ...t.config, outbound: { ...t.config.outbound, allowPrivateNetworks: false } };
    const client = new WebhookHttpClient(new OutboundHttp(strict));
    const before = rx.deliveries.length;
    for (const url of [
      rx.url('/private'),
      rx.url('/private').replace('127.0.0.1', 'localhost'),
      'http://[::1]:1/x',
      'http://169.254.169.254/latest',
    ]) {
      const res = await client.post(url, {}, '{}');
      expect(res.statusCode).toBeNull();
      expect(res.error).toMatch(/^refused: /);
    }
    expect(rx.deliveries.length).toBe(before);
    rx.answer('/redirect', 307);
    const redirect = await t.app.get(WebhookHttpClient).post(rx.url('/redirect'), {}, '{}');
    expect(redirect.statusCode).toBe(307);
    expect(rx.at('/elsewhere')).toEqual([]);
  });

  it('a drain reads the webhook and the events with its claim: switched off after the relay → logged FAILED, nothing sent; on again → sent, signed', async () => {
    const admin = await signupWorkspace(t);
    const h = await hook(admin, ['contact.created']);
    const dispatcher = t.app.get(WebhookDispatcher);
    const [event] = await sql<{ id: string }>(
      t,
      `INSERT INTO event_outbox (workspace_id, type, data, relayed_at)
       VALUES ($1, 'contact.created', '{"contact": {"name": "Claimed Clara"}}'::jsonb, now()) RETURNING id`,
      [admin.workspaceId],
    );
    const attempt = async (): Promise<string> => {
      const [row] = await sql<{ id: string }>(
        t,
        `INSERT INTO webhook_deliveries (workspace_id, webhook_id, event_id, event_type, next_attempt_at)
         VALUES ($1, $2, $3, 'contact.created', now()) RETURNING id`,
        [admin.workspaceId, h.id, event!.id],
      );
      return row!.id;
    };
    const off = await attempt();
    await sql(t, `UPDATE webhooks SET active = false WHERE id = $1`, [h.id]);
    expect(await runAsWorkspace(admin.workspaceId, () => dispatcher.drain(h.id))).toEqual({
      sent: 0,
      failed: 1,
      retrying: 0,
    });
    const [logged] = await sql<{ status: string; error: string }>(
      t,
      `SELECT status, error FROM webhook_deliveries WHERE id = $1`,
      [off],
    );
    expect(logged).toEqual({ status: 'FAILED', error: 'the webhook is disabled' });
    expect(rx.at(h.path)).toEqual([]);

    await sql(t, `UPDATE webhooks SET active = true, failure_count = 3 WHERE id = $1`, [h.id]);
    const on = await attempt();
    expect(await runAsWorkspace(admin.workspaceId, () => dispatcher.drain(h.id))).toEqual({
      sent: 1,
      failed: 0,
      retrying: 0,
    });
    const [sent] = rx.at(h.path);
    verify(sent!, h.secret);
    expect(sent!.body).toMatchObject({
      id: event!.id,
      type: 'contact.created',
      workspaceId: admin.workspaceId,
      data: { contact: { name: 'Claimed Clara' } },
    });
    // The success is stored and ends the failure streak, in one statement.
    const [done] = await sql<{ status: string; status_code: number; failure_count: number }>(
      t,
      `SELECT d.status, d.status_code, w.failure_count FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
        WHERE d.id = $1`,
      [on],
    );
    expect(done).toEqual({ status: 'SUCCEEDED', status_code: 200, failure_count: 0 });
  });

  /** `count` PENDING attempts of one stored event for a webhook, due now unless `lockedSeconds` puts them in flight. */
  async function pendingAttempts(admin: Session, h: Hook, count: number, lockedSeconds = 0): Promise<string[]> {
    const [event] = await sql<{ id: string }>(
      t,
      `INSERT INTO event_outbox (workspace_id, type, data, relayed_at)
       VALUES ($1, 'contact.created', '{"contact": {"name": "Backlog Bo"}}'::jsonb, now()) RETURNING id`,
      [admin.workspaceId],
    );
    const rows = await sql<{ id: string }>(
      t,
      `INSERT INTO webhook_deliveries (workspace_id, webhook_id, event_id, event_type, next_attempt_at, locked_until)
       SELECT $1, $2, $3, 'contact.created', now(),
              CASE WHEN $4::int > 0 THEN now() + make_interval(secs => $4::int) END
         FROM generate_series(1, $5) RETURNING id`,
      [admin.workspaceId, h.id, event!.id, lockedSeconds, count],
    );
    return rows.map((r) => r.id);
  }

  it('a backlog drains in batches: one job sends 4 at a time side by side, each attempt once, the successes stored', async () => {
    const admin = await signupWorkspace(t);
    const h = await hook(admin, ['contact.created']);
    rx.delay(h.path, 300);
    const ids = await pendingAttempts(admin, h, 10);
    // Another workspace's drain of this webhook claims and sends nothing.
    const other = await signupWorkspace(t);
    expect(await runAsWorkspace(other.workspaceId, () => t.app.get(WebhookDispatcher).drain(h.id))).toEqual({
      sent: 0,
      failed: 0,
      retrying: 0,
    });
    expect(rx.at(h.path)).toEqual([]);
    const started = Date.now();
    const tally = await runAsWorkspace(admin.workspaceId, () => t.app.get(WebhookDispatcher).drain(h.id));
    const took = Date.now() - started;
    expect(tally).toEqual({ sent: 10, failed: 0, retrying: 0 });
    expect(rx.at(h.path)).toHaveLength(10);
    expect(rx.maxInFlight(h.path)).toBe(4);
    // 10 attempts at 4 in flight are 3 batches, each waiting for the receiver's 300 ms.
    expect(took).toBeGreaterThanOrEqual(3 * 300);
    const rows = await sql<{ status: string; status_code: number; duration_ms: number; locked_until: Date | null }>(
      t,
      `SELECT status, status_code, duration_ms, locked_until FROM webhook_deliveries WHERE id = ANY ($1::uuid[])`,
      [ids],
    );
    expect(rows).toHaveLength(10);
    for (const row of rows) {
      expect(row).toMatchObject({ status: 'SUCCEEDED', status_code: 200, locked_until: null });
      expect(row.duration_ms).toBeGreaterThanOrEqual(290);
    }
  });

  it('one drain per webhook and process: a second one asked meanwhile returns at once, the first takes its work', async () => {
    const admin = await signupWorkspace(t);
    const h = await hook(admin, ['contact.created']);
    rx.delay(h.path, 1_500);
    await pendingAttempts(admin, h, 2);
    const dispatcher = t.app.get(WebhookDispatcher);
    const first = runAsWorkspace(admin.workspaceId, () => dispatcher.drain(h.id));
    await eventually(async () => expect(rx.at(h.path)).toHaveLength(2), 5_000);
    // Two of four slots are free: a second drain would claim two of these; it leaves them to the first.
    const late = await pendingAttempts(admin, h, 3);
    expect(await runAsWorkspace(admin.workspaceId, () => dispatcher.drain(h.id))).toEqual({
      sent: 0,
      failed: 0,
      retrying: 0,
    });
    expect(await first).toEqual({ sent: 5, failed: 0, retrying: 0 });
    expect(rx.at(h.path)).toHaveLength(5);
    expect(rx.maxInFlight(h.path)).toBeLessThanOrEqual(4);
    const rows = await sql<{ status: string }>(t, `SELECT status FROM webhook_deliveries WHERE id = ANY ($1::uuid[])`, [
      late,
    ]);
    expect(rows.map((r) => r.status)).toEqual(['SUCCEEDED', 'SUCCEEDED', 'SUCCEEDED']);
  });

  it('a webhook at its in-flight limit is not sent more; its due attempt goes out once the others end', async () => {
    const admin = await signupWorkspace(t);
    const h = await hook(admin, ['contact.created']);
    const inFlight = await pendingAttempts(admin, h, 4, 2);
    const [due] = await pendingAttempts(admin, h, 1);
    const dispatcher = t.app.get(WebhookDispatcher);
    expect(await runAsWorkspace(admin.workspaceId, () => dispatcher.drain(h.id))).toEqual({
      sent: 0,
      failed: 0,
      retrying: 0,
    });
    expect(rx.at(h.path)).toEqual([]);
    // The drain looks again every second; when the leases end, all five are sent, each once.
    await eventually(async () => {
      const rows = await sql<{ status: string }>(
        t,
        `SELECT status FROM webhook_deliveries WHERE id = ANY ($1::uuid[])`,
        [[...inFlight, due!]],
      );
      expect(rows.map((r) => r.status)).toEqual(Array(5).fill('SUCCEEDED'));
    }, 15_000);
    expect(rx.at(h.path)).toHaveLength(5);
  });
});
