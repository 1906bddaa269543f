import { afterAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import { type TestApp, createTestApp, eventually, usingRedis } from '../../utils/test-app';
import { signupWorkspace } from '../../utils/sessions';
import { sql } from '../inbox/inbox-helpers';
import { Receiver, verify } from './receiver';

/** Starts the service in a child process on the same data; resolves with its port. */
function startChild(env: Record<string, string>): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [join(process.cwd(), 'test/e2e/developer/crash-child.cjs')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{"port"'));
      if (line) resolve({ child, port: (JSON.parse(line) as { port: number }).port });
    });
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`child exited (${code}) before listening: ${err.slice(-2000)}`)));
  });
}

describe(`crash safety of the event outbox (${usingRedis() ? 'BullMQ' : 'in-process jobs'})`, () => {
  const children: ChildProcess[] = [];
  let t: TestApp | null = null;
  let rx: Receiver | null = null;
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await t?.close();
    await rx?.close();
  });

  const began = Date.now();
  const step = (what: string) =>
    process.stderr.write(`[crash test +${Math.round((Date.now() - began) / 1000)} s] ${what}\n`);

  it('a process killed (SIGKILL) after the change commits and before the relay ran: delivered after restart', async () => {
    // The child runs tsc's output (dist/src); this compiles it only when a source changed.
    execFileSync(process.execPath, ['scripts/build.mjs', '--quiet'], { stdio: 'ignore' });
    rx = await Receiver.start();
    const first = await createTestApp();
    const admin = await signupWorkspace(first);
    const created = await first.http
      .post('/developer/webhooks')
      .set(admin.headers)
      .send({ url: rx.url('/crash'), events: ['contact.created'] })
      .expect(201);
    const secret = created.body.secret as string;
    const env: Record<string, string> = Object.fromEntries(
      Object.entries({
        NODE_ENV: 'test',
        DATA_DIR: first.dataDir,
        JWT_SECRET: 'test-jwt-secret-0123456789',
        ENCRYPTION_KEY: first.config.encryptionKey.toString('base64'),
        LOG_LEVEL: 'silent',
        OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
        QUEUE_PREFIX: `${first.config.redis.prefix}-child`,
        ...(first.config.redis.url ? { REDIS_URL: first.config.redis.url } : {}),
        ...(first.config.db.url ? { DATABASE_URL: first.config.db.url } : {}),
      }).filter(([, v]) => v !== undefined),
    );
    const databaseUrl = first.config.db.url ?? undefined;
    await first.close({ keepData: true });

    step('first app closed; starting the child');
    const { child, port } = await startChild(env);
    step('child listening');
    children.push(child);
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on('exit', (_code, signal) => resolve(signal)),
    );
    const answer = await fetch(`http://127.0.0.1:${port}/contacts`, {
      method: 'POST',
      headers: { ...admin.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Survivor' }),
    }).catch((error: unknown) => error);
    // The process died before answering: no HTTP status, a network error instead.
    expect((answer as { status?: number }).status).toBeUndefined();
    expect(await exited).toBe('SIGKILL');
    expect(rx.at('/crash')).toEqual([]);
    step('child killed itself after commit; restarting');

    t = await createTestApp({
      reuse: { dataDir: first.dataDir, ...(databaseUrl ? { databaseUrl } : {}) },
      env: { ENCRYPTION_KEY: env.ENCRYPTION_KEY! },
    });
    step('restarted');
    const [row] = await sql<{ id: string }>(
      t,
      `SELECT id FROM contacts WHERE workspace_id = $1 AND name = 'Survivor'`,
      [admin.workspaceId],
    );
    expect(row).toBeDefined();
    const d = await eventually(async () => {
      await t!.drain();
      const [got] = rx!.at('/crash');
      if (!got) throw new Error('not delivered yet');
      return got;
    }, 30_000);
    verify(d, secret);
    expect(d.body).toMatchObject({
      type: 'contact.created',
      workspaceId: admin.workspaceId,
      data: { contact: { id: row!.id } },
    });
  }, 400_000);
});
