import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { CacheInvalidation } from 'src/core/events/cache-invalidation';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { CatalogAgentSearch } from 'src/modules/catalogue';
import { ChannelDirectory } from 'src/modules/channels';
import { QueuesService } from 'src/modules/queues';
import { SlaService } from 'src/modules/sla';
import { TicketSettingsService } from 'src/modules/tickets';
import { WorkspacesService } from 'src/modules/workspaces';
import { type TestApp, createSecondApiProcess, createTestApp, eventually, heardEverything } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';

/**
 * Configuration caches trusted across processes (issue 16 item 3): a change made through one
 * service instance invalidates another instance's cache at commit (PostgreSQL: NOTIFY → LISTEN),
 * a cache serves from memory meanwhile, and a lost LISTEN connection makes every process read per
 * event until it is back. The probe is the catalogue's "has an item on sale" cache (the pipeline's
 * suggested reply asks it for every message).
 */
const postgres = Boolean(process.env.DATABASE_URL);

async function onSale(t: TestApp, workspaceId: string): Promise<boolean> {
  return runAsWorkspace(workspaceId, () => t.app.get(CatalogAgentSearch).hasItemsOnSale());
}

/** Flips an item's status behind the service's back (no notification): only a read can see it. */
async function setStatusBehindTheBack(t: TestApp, workspaceId: string, id: string, status: string): Promise<void> {
  await t.app
    .get(DataSource)
    .query('UPDATE catalog_items SET status = $3 WHERE workspace_id = $1 AND id = $2', [workspaceId, id, status]);
}

/** What the pipeline reads per new conversation: the ticket settings' key prefix and the default queue id. */
function ticketPrefix(t: TestApp, workspaceId: string): Promise<string> {
  return runAsWorkspace(workspaceId, async () => (await t.app.get(TicketSettingsService).current()).keyPrefix);
}

function defaultQueueId(t: TestApp, workspaceId: string): Promise<string> {
  return runAsWorkspace(workspaceId, () => t.app.get(QueuesService).getDefaultId());
}

/** Minutes from creation to a new ticket's due time under the workspace's matching SLA policy (null: none). */
async function slaResolutionMinutes(t: TestApp, workspaceId: string): Promise<number | null> {
  const from = new Date('2026-01-01T00:00:00Z');
  const due = await runAsWorkspace(workspaceId, () =>
    t.app.get(SlaService).ticketDueAt({ priority: 'MEDIUM', channelType: null, queueId: null }, from),
  );
  return due ? (due.getTime() - from.getTime()) / 60_000 : null;
}

async function createSlaPolicy(t: TestApp, admin: Session, resolutionMinutes: number): Promise<string> {
  const res = await t.http
    .post('/sla/policies')
    .set(admin.headers)
    .send({ name: 'Standard', firstResponseMinutes: 10, resolutionMinutes })
    .expect(201);
  return String(res.body.id);
}

/** A second queue made the default through the API (PUT /queues/:id). */
async function makeNewDefaultQueue(t: TestApp, admin: Session, name: string): Promise<string> {
  const created = await t.http.post('/queues').set(admin.headers).send({ name }).expect(201);
  await t.http
    .put(`/queues/${String(created.body.id)}`)
    .set(admin.headers)
    .send({ isDefault: true })
    .expect(200);
  return String(created.body.id);
}

async function createItem(t: TestApp, admin: Session, name: string): Promise<string> {
  const res = await t.http.post('/catalog').set(admin.headers).send({ name, price: 1000 }).expect(201);
  return String(res.body.id);
}

describe('cache invalidation', () => {
  let a: TestApp;
  let admin: Session;

  beforeAll(async () => {
    a = await createTestApp();
    admin = await signupWorkspace(a);
  });
  afterAll(async () => {
    await a.close();
  });

  it('in one process: a change through the API is seen at once; memory is served in between', async () => {
    expect(a.app.get(CacheInvalidation).trusted).toBe(true);
    const ws = await signupWorkspace(a, 'Single');
    expect(await onSale(a, ws.workspaceId)).toBe(false);
    const id = await createItem(a, ws, 'Kettle');
    expect(await onSale(a, ws.workspaceId)).toBe(true);
    // Served from memory: a change nobody reported is not seen...
    await setStatusBehindTheBack(a, ws.workspaceId, id, 'OFF_SALE');
    expect(await onSale(a, ws.workspaceId)).toBe(true);
    // ...one made through the service is.
    await a.http.delete(`/catalog/${id}`).set(ws.headers).expect(200);
    expect(await onSale(a, ws.workspaceId)).toBe(false);
  });

  it('in one process: ticket settings and the default queue, memory between changes, a change through the API at once', async () => {
    const ws = await signupWorkspace(a, 'Tickets and queues');
    expect(await ticketPrefix(a, ws.workspaceId)).toBe('TCK');
    await a.http.put('/tickets/settings').set(ws.headers).send({ keyPrefix: 'SUP' }).expect(200);
    expect(await ticketPrefix(a, ws.workspaceId)).toBe('SUP');
    // Served from memory: a change nobody reported is not seen...
    await a.app
      .get(DataSource)
      .query(`UPDATE ticket_settings SET key_prefix = 'HID' WHERE workspace_id = $1`, [ws.workspaceId]);
    expect(await ticketPrefix(a, ws.workspaceId)).toBe('SUP');
    // ...one made through the service is.
    await a.http.put('/tickets/settings').set(ws.headers).send({ keyPrefix: 'NEW' }).expect(200);
    expect(await ticketPrefix(a, ws.workspaceId)).toBe('NEW');

    const first = await defaultQueueId(a, ws.workspaceId);
    const second = await makeNewDefaultQueue(a, ws, 'Second line');
    expect(second).not.toBe(first);
    expect(await defaultQueueId(a, ws.workspaceId)).toBe(second);
  });

  it('in one process: SLA policies, memory between changes, a change through the API at once', async () => {
    const ws = await signupWorkspace(a, 'SLA');
    expect(await slaResolutionMinutes(a, ws.workspaceId)).toBeNull();
    const id = await createSlaPolicy(a, ws, 120);
    expect(await slaResolutionMinutes(a, ws.workspaceId)).toBe(120);
    // Served from memory: a change nobody reported is not seen...
    await a.app
      .get(DataSource)
      .query(`UPDATE sla_policies SET resolution_minutes = 5 WHERE workspace_id = $1`, [ws.workspaceId]);
    expect(await slaResolutionMinutes(a, ws.workspaceId)).toBe(120);
    // ...those made through the service are.
    await a.http.put(`/sla/policies/${id}`).set(ws.headers).send({ resolutionMinutes: 60 }).expect(200);
    expect(await slaResolutionMinutes(a, ws.workspaceId)).toBe(60);
    await a.http.put(`/sla/policies/${id}`).set(ws.headers).send({ active: false }).expect(200);
    expect(await slaResolutionMinutes(a, ws.workspaceId)).toBeNull();
    await a.http.put(`/sla/policies/${id}`).set(ws.headers).send({ active: true }).expect(200);
    expect(await slaResolutionMinutes(a, ws.workspaceId)).toBe(60);
    await a.http.delete(`/sla/policies/${id}`).set(ws.headers).expect(204);
    expect(await slaResolutionMinutes(a, ws.workspaceId)).toBeNull();
  });

  (postgres ? describe : describe.skip)('two processes on one PostgreSQL database', () => {
    let b: TestApp;
    beforeAll(async () => {
      b = await createSecondApiProcess(a);
    });
    afterAll(async () => {
      await b.close({ keepData: true });
    });

    it("a change made through one instance is seen by the other's cache at commit", async () => {
      await eventually(async () => expect(b.app.get(CacheInvalidation).trusted).toBe(true), 5_000);
      const ws = await signupWorkspace(a, 'Two processes catalogue');
      const id = await createItem(a, ws, 'Grinder');
      await a.http.delete(`/catalog/${id}`).set(ws.headers).expect(200);
      await heardEverything(a, b, 'ai-states'); // the marker: a topic none of these caches reads
      expect(await onSale(b, ws.workspaceId)).toBe(false);
      // B serves its memory: the row changed behind both services' backs is not seen.
      await setStatusBehindTheBack(a, ws.workspaceId, id, 'ON_SALE');
      expect(await onSale(b, ws.workspaceId)).toBe(false);
      await setStatusBehindTheBack(a, ws.workspaceId, id, 'OFF_SALE');
      // A change through A reaches B when A commits (the notification takes a moment to arrive).
      const started = Date.now();
      const second = await createItem(a, ws, 'Scale');
      await eventually(async () => expect(await onSale(b, ws.workspaceId)).toBe(true), 2_000, 5);
      expect(Date.now() - started).toBeLessThan(2_000);
      await a.http.delete(`/catalog/${second}`).set(ws.headers).expect(200);
      await eventually(async () => expect(await onSale(b, ws.workspaceId)).toBe(false), 2_000, 5);
    });

    it("the webhook ack's connection cache: memory between changes, another instance's plan change seen at commit", async () => {
      await eventually(async () => expect(b.app.get(CacheInvalidation).trusted).toBe(true), 5_000);
      const ws = await signupWorkspace(a, 'Acks');
      await a.app.get(WorkspacesService).setPlan(ws.workspaceId, 'ENTERPRISE'); // the Custom Channel's plan
      const channel = await a.http
        .post('/channels/connect')
        .set(ws.headers)
        .send({
          type: 'CUSTOM',
          displayName: 'Site',
          inboundSecret: 'a-long-enough-inbound-secret',
          outboundUrl: 'http://127.0.0.1:9/out',
        })
        .expect(201);
      const id = String(channel.body.id);
      await heardEverything(a, b, 'ai-states'); // the marker: a topic none of these caches reads
      const cached = () => b.app.get(ChannelDirectory).findCached(id);
      expect((await cached())!.row.plan).toBe('ENTERPRISE');
      const [behind, through] = ['STARTER', 'PRO'] as const;
      // Changed behind both services' backs: B keeps serving its memory, also after more than a second.
      await a.app.get(DataSource).query(`UPDATE workspaces SET plan = $2 WHERE id = $1`, [ws.workspaceId, behind]);
      await new Promise((r) => setTimeout(r, 1_500));
      expect((await cached())!.row.plan).toBe('ENTERPRISE');
      // A plan change through A (the CLI's path) reaches B's cache when A commits.
      await a.app.get(WorkspacesService).setPlan(ws.workspaceId, through);
      await eventually(async () => expect((await cached())!.row.plan).toBe(through), 2_000, 5);
      // Unknown ids are never cached.
      expect(await b.app.get(ChannelDirectory).findCached('00000000-0000-4000-8000-000000000000')).toBeNull();
    });

    it("ticket settings and the default queue changed through one instance reach the other's cache at commit", async () => {
      await eventually(async () => expect(b.app.get(CacheInvalidation).trusted).toBe(true), 5_000);
      const ws = await signupWorkspace(a, 'Two processes');
      expect(await ticketPrefix(b, ws.workspaceId)).toBe('TCK');
      const queue = await defaultQueueId(b, ws.workspaceId);
      await a.http.put('/tickets/settings').set(ws.headers).send({ keyPrefix: 'OPS' }).expect(200);
      await eventually(async () => expect(await ticketPrefix(b, ws.workspaceId)).toBe('OPS'), 2_000, 5);
      const second = await makeNewDefaultQueue(a, ws, 'Escalations');
      expect(second).not.toBe(queue);
      await eventually(async () => expect(await defaultQueueId(b, ws.workspaceId)).toBe(second), 2_000, 5);
    });

    it("SLA policies created, changed and deleted through one instance reach the other's cache at commit", async () => {
      await eventually(async () => expect(b.app.get(CacheInvalidation).trusted).toBe(true), 5_000);
      const ws = await signupWorkspace(a, 'Two processes SLA');
      expect(await slaResolutionMinutes(b, ws.workspaceId)).toBeNull();
      const id = await createSlaPolicy(a, ws, 90);
      await eventually(async () => expect(await slaResolutionMinutes(b, ws.workspaceId)).toBe(90), 2_000, 5);
      await a.http.put(`/sla/policies/${id}`).set(ws.headers).send({ resolutionMinutes: 30 }).expect(200);
      await eventually(async () => expect(await slaResolutionMinutes(b, ws.workspaceId)).toBe(30), 2_000, 5);
      await a.http.delete(`/sla/policies/${id}`).set(ws.headers).expect(204);
      await eventually(async () => expect(await slaResolutionMinutes(b, ws.workspaceId)).toBeNull(), 2_000, 5);
    });

    it('a lost LISTEN connection: reads per event until it is back, then memory again', async () => {
      const id = await createItem(a, admin, 'Mill');
      await a.http.delete(`/catalog/${id}`).set(admin.headers).expect(200);
      await eventually(async () => expect(await onSale(b, admin.workspaceId)).toBe(false), 2_000, 5);
      const killed: unknown[] = await a.app.get(DataSource).query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = 'sis-cache-listener'`,
      );
      expect(killed.length).toBe(2);
      // While it is down (it comes back after a second), nothing is served from memory.
      await eventually(async () => expect(b.app.get(CacheInvalidation).trusted).toBe(false), 2_000, 5);
      await setStatusBehindTheBack(a, admin.workspaceId, id, 'ON_SALE');
      expect(await onSale(b, admin.workspaceId)).toBe(true);
      await eventually(async () => expect(b.app.get(CacheInvalidation).trusted).toBe(true), 10_000);
      expect(await onSale(b, admin.workspaceId)).toBe(true);
      await setStatusBehindTheBack(a, admin.workspaceId, id, 'OFF_SALE');
      expect(await onSale(b, admin.workspaceId)).toBe(true);
    });
  });
});
