import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Pool } from 'pg';
import { DataSource } from 'typeorm';
import { runCli } from 'src/cli-commands';
import { DatabaseRuntime } from 'src/core/database/database-runtime';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, login, loginAdmin } from '../../utils/sessions';
import { type CustomChannel, connectCustom, inboxEnv, postCustom, sql } from '../inbox/inbox-helpers';
import { MockPlatform } from '../inbox/mock-platform';

/**
 * Issue 9 item 8: the embedded engine never mixes two clients' protocol streams. The CLI reaches a
 * running embedded service through DATA_DIR/admin.sock (the service runs the command on its own
 * pool); any other database client is refused. On PostgreSQL the CLI connects to DATABASE_URL
 * itself (no admin channel), and the loop + burst check still applies.
 */
const embedded = !process.env.DATABASE_URL;

function cliEnv(t: TestApp): Record<string, string> {
  return {
    DATA_DIR: t.dataDir,
    ...(t.config.db.url ? { DATABASE_URL: t.config.db.url } : {}),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
  };
}

interface Member {
  readonly userId: string;
  readonly email: string;
  readonly role: string;
}

describe('embedded engine: one database client, the CLI through the admin socket', () => {
  let t: TestApp;
  let mock: MockPlatform;
  let admin: Session;
  let channel: CustomChannel;
  beforeAll(async () => {
    mock = await MockPlatform.start();
    t = await createTestApp({ env: inboxEnv(mock) });
    admin = await loginAdmin(t);
    channel = await connectCustom(t, admin, mock);
  });
  afterAll(async () => {
    await t.close();
    await mock.close();
  });

  (embedded ? it : it.skip)(
    'refuses any other database client with a clear message, and writes no URL file',
    async () => {
      const address = t.app.get(DatabaseRuntime).embeddedAddress!;
      expect(address.port).toBeGreaterThan(0);
      expect(existsSync(join(t.dataDir, 'db-url'))).toBe(false);
      for (const application_name of [undefined, 'psql', 'sis-000000000000000000000000000000000000']) {
        const client = new Client({
          host: address.host,
          port: address.port,
          user: 'postgres',
          database: 'postgres',
          application_name,
        });
        client.on('error', () => undefined);
        await expect(client.connect()).rejects.toThrow(/in use by the running service.*npm run cli/);
        await client.end().catch(() => undefined);
      }
      // The service's own pool still works after the refusals.
      expect(await sql(t, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
      // The admin socket is owner-only.
      const socket = statSync(join(t.dataDir, 'admin.sock'));
      expect(socket.isSocket()).toBe(true);
      expect(socket.mode & 0o777).toBe(0o600);
    },
  );

  (embedded ? it : it.skip)(
    'serves several connections of its own credential one protocol cycle at a time: no answer goes to the wrong query',
    async () => {
      // The service's pool has one connection; a pool of four with the same (in-memory) URL proves
      // the server itself never interleaves two connections' extended-protocol messages.
      const url = (t.app.get(DataSource).options as { url: string }).url;
      const pool = new Pool({ connectionString: url, max: 4 });
      try {
        const wrong: string[] = [];
        await Promise.all([
          ...Array.from({ length: 160 }, async (_, i) => {
            if (i % 8 === 0) {
              const client = await pool.connect();
              try {
                await client.query('BEGIN');
                await client.query('SELECT pg_sleep(0.002)');
                const { rows } = await client.query('SELECT $1::int AS n', [i]);
                await client.query('COMMIT');
                if (rows[0]?.n !== i) wrong.push(`tx ${i}: ${JSON.stringify(rows)}`);
              } finally {
                client.release();
              }
              return;
            }
            const { rows } = await pool.query('SELECT $1::int AS n, $2::text AS s', [i, `s-${i}`]);
            if (rows[0]?.n !== i || rows[0]?.s !== `s-${i}`) wrong.push(`${i}: ${JSON.stringify(rows)}`);
          }),
          // The service's own traffic at the same time.
          ...Array.from({ length: 20 }, () => t.http.get('/workspace').set(admin.headers).expect(200)),
        ]);
        expect(wrong).toEqual([]);
        // A connection that vanishes inside a transaction is rolled back; the others go on.
        const doomed = await pool.connect();
        await doomed.query('BEGIN');
        await doomed.query(`INSERT INTO queues (workspace_id, name) VALUES ($1, 'vanished')`, [admin.workspaceId]);
        doomed.release(new Error('drop this connection'));
        expect((await pool.query('SELECT 41 + 1 AS n')).rows).toEqual([{ n: 42 }]);
        expect(await sql(t, `SELECT id FROM queues WHERE name = 'vanished'`)).toEqual([]);
      } finally {
        await pool.end();
      }
    },
  );

  it('answers every CLI command right while a burst of signed inbound messages is stored', async () => {
    const workspaceId = admin.workspaceId;
    const burst = embedded ? 240 : 120;
    const loops = embedded ? 3 : 1;
    const rounds = embedded ? 8 : 2;
    const texts = Array.from({ length: burst }, (_, i) => `burst message ${i} ${'x'.repeat(i % 40)}`);

    // The burst: 16 concurrent senders, every answer recorded.
    const acknowledged: string[] = [];
    const failures: string[] = [];
    let next = 0;
    const senders = Array.from({ length: 16 }, async () => {
      while (next < texts.length) {
        const i = next++;
        const res = await postCustom(t, channel, {
          senderId: `burst-${i % 30}`,
          senderName: `Sender ${i % 30}`,
          text: texts[i],
          messageId: `burst-${i}`,
        });
        if (res.status === 200) acknowledged.push(texts[i]!);
        else failures.push(`${i}: ${res.status}`);
      }
    });

    // CLI loops at the same time: every answer's content is checked against what this loop did.
    const expectedMembers = new Map<string, Member>();
    const cliLoop = async (loop: number): Promise<number> => {
      let answers = 0;
      for (let r = 0; r < rounds; r++) {
        const email = `cli-${loop}-${r}@acme.test`;
        const role = (['AGENT', 'SUPERVISOR', 'ADMIN'] as const)[(loop + r) % 3];
        const added = (await runCli(
          [
            'user:add',
            '--workspace',
            workspaceId,
            '--email',
            email,
            '--password',
            `password-${loop}-${r}`,
            '--role',
            role,
            '--name',
            `Cli ${loop} ${r}`,
          ],
          cliEnv(t),
        )) as Member & { workspaceId: string };
        expect(added).toMatchObject({ workspaceId, email, role });
        expectedMembers.set(email, added);

        const list = (await runCli(['user:list', '--workspace', workspaceId], cliEnv(t))) as {
          workspaceId: string;
          data: Member[];
        };
        expect(list.workspaceId).toBe(workspaceId);
        const listed = new Map(list.data.map((m) => [m.email, m]));
        expect(listed.get('admin@example.com')?.role).toBe('ADMIN');
        for (const [mail, member] of expectedMembers) {
          // Members added by any loop before this answer was asked for are all there, unchanged.
          if (mail.startsWith(`cli-${loop}-`))
            expect(listed.get(mail)).toMatchObject({ userId: member.userId, role: member.role });
        }

        const workspaces = (await runCli(['workspace:list'], cliEnv(t))) as { data: { id: string; name: string }[] };
        expect(workspaces.data.some((w) => w.id === workspaceId)).toBe(true);

        const password = (await runCli(
          ['user:password', '--email', email, '--password', `changed-${loop}-${r}`],
          cliEnv(t),
        )) as Record<string, unknown>;
        expect(password).toEqual({ userId: added.userId, email, passwordChanged: true });

        const query = (await runCli(
          ['db:query', '--sql', `SELECT email FROM users WHERE id = '${added.userId}'`],
          cliEnv(t),
        )) as { rows: { email: string }[] };
        expect(query.rows).toEqual([{ email }]);
        answers += 5;
      }
      return answers;
    };

    const [answers] = await Promise.all([
      Promise.all(Array.from({ length: loops }, (_, loop) => cliLoop(loop))).then((n) => n.reduce((a, b) => a + b, 0)),
      Promise.all(senders),
    ]);
    expect(answers).toBe(loops * rounds * 5);
    expect(failures).toEqual([]);
    expect(acknowledged).toHaveLength(burst);

    // Every acknowledged message is stored exactly once, with its own text.
    await t.drain();
    const events = await sql<{ text: string; n: number }>(
      t,
      `SELECT payload->>'text' AS text, count(*)::int AS n FROM inbound_events WHERE channel_id = $1 GROUP BY 1`,
      [channel.id],
    );
    expect(events.filter((e) => e.n !== 1)).toEqual([]);
    expect(new Set(events.map((e) => e.text))).toEqual(new Set(acknowledged));

    // The passwords the CLI set are the ones that work.
    const someone = [...expectedMembers.keys()][0]!;
    const [, l, r] = /^cli-(\d+)-(\d+)@/.exec(someone)!;
    await login(t, someone, `changed-${l}-${r}`, workspaceId);
  });

  it('reports usage and not-found errors through the admin socket like the direct path', async () => {
    await expect(
      runCli(
        ['user:add', '--workspace', admin.workspaceId, '--email', 'nobody-new@acme.test', '--role', 'AGENT'],
        cliEnv(t),
      ),
    ).rejects.toThrow('--password is required for a new user');
    await expect(
      runCli(['user:list', '--workspace', '00000000-0000-4000-8000-000000000000'], cliEnv(t)),
    ).rejects.toThrow('Workspace not found');
    await expect(runCli(['db:query', '--sql', 'DELETE FROM users'], cliEnv(t))).rejects.toThrow(/read-only/);
    expect((await sql<{ n: number }>(t, 'SELECT count(*)::int AS n FROM users'))[0]!.n).toBeGreaterThan(0);
  });
});
