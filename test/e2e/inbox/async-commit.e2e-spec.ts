import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import { connectCustom, eventReaches, inboxEnv, postCustom, sql } from './inbox-helpers';
import { MockPlatform } from './mock-platform';

/**
 * Issue 16 (docs/decisions.md, session 22): on real PostgreSQL the inbound pipeline's per-event
 * transaction commits without waiting for the WAL flush, while the acknowledgement's INSERT stays
 * synchronous (an acknowledged event is durable). Nothing derived from a pipeline transaction may
 * leave the database — an automatic reply sent through the channel, a developer webhook, the
 * conversation handed to an LLM — before that transaction is flushed. The embedded engine commits
 * everything synchronously, as before.
 *
 * Observed from the database itself: a deferred constraint trigger on `inbound_events` runs at
 * COMMIT of the transaction that wrote the row and records the `synchronous_commit` in force there
 * and the WAL insert position (everything the transaction wrote lies before it). A local peer
 * standing for the platform, the webhook receiver and the LLM reads `pg_current_wal_flush_lsn()`
 * when a request arrives, before it answers.
 */
const postgres = Boolean(process.env.DATABASE_URL);

interface Arrival {
  readonly path: string;
  readonly raw: string;
  /** `pg_current_wal_flush_lsn()` read when the request arrived (PostgreSQL only). */
  readonly flushed: string | null;
}

/** The platform's outbound endpoint, a webhook receiver and an OpenAI-compatible LLM in one. */
class Peer {
  readonly arrivals: Arrival[] = [];
  flushLsn: () => Promise<string | null> = () => Promise.resolve(null);
  url = '';
  private server: Server;

  private constructor() {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  static async start(): Promise<Peer> {
    const peer = new Peer();
    await new Promise<void>((resolve) => peer.server.listen(0, '127.0.0.1', resolve));
    peer.url = `http://127.0.0.1:${(peer.server.address() as AddressInfo).port}`;
    return peer;
  }

  arrived(path: string, text: string): Arrival | undefined {
    return this.arrivals.find((a) => a.path === path && a.raw.includes(text));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    const send = (body: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET') return send({ object: 'list', data: [{ id: 'mock-small', object: 'model' }] });
    this.arrivals.push({ path, raw, flushed: await this.flushLsn() });
    if (path === '/v1/chat/completions') {
      return send({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'Happy to help with that.' }, finish_reason: 'stop' },
        ],
      });
    }
    send({ ok: true });
  }
}

describe('Inbound pipeline: asynchronous commit, durable before anything leaves', () => {
  let t: TestApp;
  let mock: MockPlatform;
  let peer: Peer;
  let admin: Session;

  beforeAll(async () => {
    mock = await MockPlatform.start();
    peer = await Peer.start();
    t = await createTestApp({ env: inboxEnv(mock, { LLM_BASE_URL: `${peer.url}/v1`, LLM_MODEL: 'mock-small' }) });
    if (postgres) {
      peer.flushLsn = async () =>
        (await sql<{ lsn: string }>(t, 'SELECT pg_current_wal_flush_lsn()::text AS lsn'))[0]!.lsn;
    }
    await sql(
      t,
      `CREATE TABLE test_commit_settings (
         event_id uuid NOT NULL, op text NOT NULL, status text NOT NULL, synchronous_commit text NOT NULL, lsn text)`,
    );
    await sql(
      t,
      `CREATE FUNCTION test_record_commit_setting() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         INSERT INTO test_commit_settings
         VALUES (NEW.id, TG_OP, NEW.status, current_setting('synchronous_commit'),
                 ${postgres ? 'pg_current_wal_insert_lsn()::text' : 'NULL'});
         RETURN NULL;
       END $$`,
    );
    await sql(
      t,
      `CREATE CONSTRAINT TRIGGER test_record_commit_setting AFTER INSERT OR UPDATE ON inbound_events
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_record_commit_setting()`,
    );
    admin = await signupWorkspace(t, 'Async commit');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
    await peer.close();
  });

  /**
   * What the trigger saw when the transaction that left the event `status` committed: for RECEIVED the
   * ack's INSERT (the recovery sweep may also touch a RECEIVED row that waits long on a loaded machine).
   */
  async function commitOf(eventId: string, status: string): Promise<{ synchronous_commit: string; lsn: string }> {
    const op = status === 'RECEIVED' ? 'INSERT' : 'UPDATE';
    return eventually(async () => {
      const rows = await sql<{ synchronous_commit: string; lsn: string }>(
        t,
        'SELECT synchronous_commit, lsn FROM test_commit_settings WHERE event_id = $1 AND status = $2 AND op = $3',
        [eventId, status, op],
      );
      expect(rows).toHaveLength(1);
      return rows[0]!;
    });
  }

  /** Flushed at least up to `lsn` (everything that transaction wrote before its commit record). */
  async function flushedThrough(flushed: string | null, lsn: string): Promise<boolean> {
    const [row] = await sql<{ ok: boolean }>(t, 'SELECT $1::pg_lsn >= $2::pg_lsn AS ok', [flushed, lsn]);
    return row!.ok;
  }

  it('the ack commits synchronously; the pipeline transaction asynchronously on PostgreSQL only', async () => {
    const channel = await connectCustom(t, admin, mock);
    const ack = await postCustom(t, channel, { senderId: 'sc-1', text: 'is my order on its way?' }).expect(200);
    const eventId = String(ack.body.eventId);
    await eventReaches(t, admin, channel.id, eventId);

    expect((await commitOf(eventId, 'RECEIVED')).synchronous_commit).toBe('on');
    expect((await commitOf(eventId, 'PROCESSED')).synchronous_commit).toBe(postgres ? 'off' : 'on');
    // The setting ends with the transaction: the pool's sessions are back to the default.
    const [setting] = await sql<{ synchronous_commit: string }>(t, 'SHOW synchronous_commit');
    expect(setting!.synchronous_commit).toBe('on');
  });

  (postgres ? it : it.skip)(
    'PostgreSQL: an automatic reply and a developer webhook leave only once the pipeline transaction is flushed',
    async () => {
      const channel = await connectCustom(t, admin, { url: peer.url } as MockPlatform, { path: '/custom/builtin' });
      // The built-in agent answers inside the event's transaction: its reply is pipeline output.
      await t.http
        .post('/ai-agents')
        .set(admin.headers)
        .send({
          name: 'Built-in',
          provider: 'BUILTIN',
          handoffMessage: 'A colleague will answer.',
          channelIds: [channel.id],
        })
        .expect(201);
      await t.http
        .post('/developer/webhooks')
        .set(admin.headers)
        .send({ url: `${peer.url}/hook`, events: ['message.received'] })
        .expect(201);

      const text = 'where is parcel 4471?';
      const ack = await postCustom(t, channel, { senderId: 'sc-2', text }).expect(200);
      const eventId = String(ack.body.eventId);
      const commit = await commitOf(eventId, 'PROCESSED');
      expect(commit.synchronous_commit).toBe('off');

      const reply = await eventually(async () => {
        const found = peer.arrivals.find((a) => a.path === '/custom/builtin');
        expect(found).toBeDefined();
        return found!;
      });
      const webhook = await eventually(async () => {
        const found = peer.arrived('/hook', text);
        expect(found).toBeDefined();
        return found!;
      });
      expect(await flushedThrough(reply.flushed, commit.lsn)).toBe(true);
      // (A weaker check than the reply's: the relay waits for its 100 ms window, and PostgreSQL's
      // WAL writer flushes asynchronous commits every 200 ms, so it may pass without the barrier.)
      expect(await flushedThrough(webhook.flushed, commit.lsn)).toBe(true);
    },
  );

  (postgres ? it : it.skip)(
    "PostgreSQL: an LLM agent's job flushes the pipeline transaction before the conversation goes to the LLM",
    async () => {
      const channel = await connectCustom(t, admin, { url: peer.url } as MockPlatform, { path: '/custom/llm' });
      await t.http
        .post('/ai-agents')
        .set(admin.headers)
        .send({ name: 'LLM', provider: 'OPENAI_COMPATIBLE', channelIds: [channel.id] })
        .expect(201);

      const text = 'can I change the delivery address of order 9182?';
      const ack = await postCustom(t, channel, { senderId: 'sc-3', text }).expect(200);
      const commit = await commitOf(String(ack.body.eventId), 'PROCESSED');
      expect(commit.synchronous_commit).toBe('off');

      const chat = await eventually(async () => {
        const found = peer.arrived('/v1/chat/completions', text);
        expect(found).toBeDefined();
        return found!;
      });
      expect(await flushedThrough(chat.flushed, commit.lsn)).toBe(true);
      // And the answer is sent through the channel.
      await eventually(async () => {
        expect(peer.arrived('/custom/llm', 'Happy to help with that.')).toBeDefined();
      });
    },
  );
});
