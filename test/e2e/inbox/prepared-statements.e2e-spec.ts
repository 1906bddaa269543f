import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { preparedStatements } from 'src/core/database/prepared-statements';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import { type CustomChannel, connectCustom, eventReaches, inboxEnv, postCustom, sql } from './inbox-helpers';
import { MockPlatform } from './mock-platform';

/**
 * Named prepared statements (issue 16 item 3): the inbound pipeline's statements are parsed and
 * planned once per connection, on real PostgreSQL and (since session 23) on the embedded engine, whose
 * wire server gives each connection its own names in PGlite's one session (`c<n>_` before the name;
 * foundation/embedded.e2e-spec.ts). Either way the pipeline stays scoped to each workspace.
 */
const postgres = Boolean(process.env.DATABASE_URL);

describe('Inbound pipeline: prepared statements', () => {
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

  async function workspace(name: string): Promise<{ admin: Session; channel: CustomChannel }> {
    const admin = await signupWorkspace(t, name);
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
    return { admin, channel: await connectCustom(t, admin, mock) };
  }

  /** One connection of the pool: runs `fn` on it, then lists the statements prepared on it. */
  async function onOneConnection(
    fn: (query: (text: string, params: unknown[]) => Promise<unknown>) => Promise<void>,
  ): Promise<{ name: string; statement: string }[]> {
    const runner = t.app.get(DataSource).createQueryRunner();
    await runner.connect();
    try {
      await fn((text, params) => runner.query(text, params));
      return (await runner.query(
        `SELECT name, statement FROM pg_prepared_statements WHERE name ~ '^(c[0-9]+_)?sis_' ORDER BY prepare_time`,
      )) as { name: string; statement: string }[];
    } finally {
      await runner.release();
    }
  }

  it('two workspaces, the same sender id, interleaved: each message lands in its own workspace', async () => {
    const a = await workspace('Prepared A');
    const b = await workspace('Prepared B');
    const events: { admin: Session; channel: CustomChannel; id: string; text: string }[] = [];
    for (let i = 0; i < 6; i++) {
      for (const [label, w] of [
        ['A', a],
        ['B', b],
      ] as const) {
        const text = `${label} message ${i}`;
        const res = await postCustom(t, w.channel, {
          senderId: 'same-sender',
          senderName: `Customer ${label}`,
          text,
        }).expect(200);
        events.push({ ...w, id: String(res.body.eventId), text });
      }
    }
    for (const e of events) await eventReaches(t, e.admin, e.channel.id, e.id);
    for (const [label, w] of [
      ['A', a],
      ['B', b],
    ] as const) {
      const rows = await sql<{ text: string; contact: string; ws: string }>(
        t,
        `SELECT m.text, ct.name AS contact, c.workspace_id AS ws FROM messages m
           JOIN conversations c ON c.id = m.conversation_id JOIN contacts ct ON ct.id = c.contact_id
          WHERE m.channel_id = $1 AND m.direction = 'INBOUND' ORDER BY m.created_at`,
        [w.channel.id],
      );
      expect(rows.map((r) => r.text)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `${label} message ${i}`));
      expect(new Set(rows.map((r) => r.ws))).toEqual(new Set([w.admin.workspaceId]));
      expect(new Set(rows.map((r) => r.contact))).toEqual(new Set([`Customer ${label}`]));
      const conversations = await t.http.get('/conversations').set(w.admin.headers).expect(200);
      expect(conversations.body.data).toHaveLength(1);
    }
    // The pipeline ran inside the prepared scope: its statement texts were named.
    expect(preparedStatements.size).toBeGreaterThan(0);
  });

  it('a statement is named inside the scope only; the workspace is a parameter, not part of the text', async () => {
    const a = await workspace('Scope A');
    const b = await workspace('Scope B');
    const text = `SELECT count(*)::int AS n FROM queues WHERE workspace_id = $1 AND name = $2 /* prepared-spec */`;
    const prepared = await onOneConnection(async (query) => {
      await query(text.replace('prepared-spec', 'outside'), [a.admin.workspaceId, 'General']);
      for (const ws of [a.admin.workspaceId, b.admin.workspaceId]) {
        const rows = (await preparedStatements.run(() => query(text, [ws, 'General']))) as { n: number }[];
        expect(rows).toEqual([{ n: 1 }]);
      }
      const none = (await preparedStatements.run(() =>
        query(text, ['00000000-0000-4000-8000-000000000000', 'General']),
      )) as { n: number }[];
      expect(none).toEqual([{ n: 0 }]);
    });
    const mine = prepared.filter((p) => p.statement.includes('prepared-spec'));
    // One statement for every workspace (and every execution), named by the registry.
    expect(mine).toHaveLength(1);
    // On the embedded engine with its connection's prefix.
    expect(mine[0]!.name).toMatch(postgres ? /^sis_\d+_\d+$/ : /^c\d+_sis_\d+_\d+$/);
    expect(mine[0]!.statement).not.toContain(a.admin.workspaceId);
    expect(prepared.some((p) => p.statement.includes('outside'))).toBe(false);
    // The claim's asynchronous commit ends with its own transaction: the session is back to the default.
    const [setting] = await sql<{ synchronous_commit: string }>(t, 'SHOW synchronous_commit');
    expect(setting!.synchronous_commit).toBe('on');
  });
});
