import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn } from 'node:child_process';
import { UsageError, runCli } from 'src/cli-commands';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { loginAdmin, login } from '../../utils/sessions';

/** The environment the CLI would see: the test app's database (DATABASE_URL) or its data directory. */
function cliEnv(t: TestApp): Record<string, string> {
  return {
    DATA_DIR: t.dataDir,
    ...(t.config.db.url ? { DATABASE_URL: t.config.db.url } : {}),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
  };
}

describe('command line', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const t of apps) await t.close();
  });

  it('creates a workspace, changes its plan and adds a user while the service runs', async () => {
    const t = await createTestApp();
    apps.push(t);
    const created = (await runCli(
      ['workspace:create', '--name', 'Acme', '--email', 'Boss@Acme.test', '--password', 'password-1', '--plan', 'pro'],
      cliEnv(t),
    )) as {
      workspaceId: string;
      plan: string;
    };
    expect(created).toMatchObject({ name: 'Acme', plan: 'PRO', adminEmail: 'boss@acme.test' });
    await runCli(['workspace:plan', '--workspace', created.workspaceId, '--plan', 'ENTERPRISE'], cliEnv(t));
    await runCli(
      [
        'user:add',
        '--workspace',
        created.workspaceId,
        '--email',
        'agent@acme.test',
        '--password',
        'password-2',
        '--role',
        'AGENT',
      ],
      cliEnv(t),
    );

    // The running service sees all of it at once.
    const boss = await login(t, 'boss@acme.test', 'password-1', created.workspaceId);
    const ws = await t.http.get('/workspace').set(boss.headers).expect(200);
    expect(ws.body.plan).toBe('ENTERPRISE');
    const agent = await login(t, 'agent@acme.test', 'password-2', created.workspaceId);
    expect((await t.http.get('/permissions/me').set(agent.headers).expect(200)).body.role).toBe('AGENT');
  });

  it('opens the data directory itself when the service is stopped', async () => {
    const t = await createTestApp();
    const admin = await loginAdmin(t);
    await t.close({ keepData: true });
    await runCli(
      [
        'user:add',
        '--workspace',
        admin.workspaceId,
        '--email',
        'late@acme.test',
        '--password',
        'password-3',
        '--role',
        'SUPERVISOR',
      ],
      cliEnv(t),
    );
    const again = await createTestApp({ reuse: { dataDir: t.dataDir, databaseUrl: t.config.db.url ?? undefined } });
    apps.push(again);
    const late = await login(again, 'late@acme.test', 'password-3', admin.workspaceId);
    expect((await again.http.get('/permissions/me').set(late.headers).expect(200)).body.role).toBe('SUPERVISOR');
  });

  it('runs from the compiled code on a stopped data directory (the embedded engine in its worker thread)', async () => {
    // dist/ is what `npm run cli` runs; only there does the engine get its own thread (embedded-worker.js).
    execFileSync(process.execPath, ['scripts/build.mjs', '--quiet'], { stdio: 'ignore' });
    const t = await createTestApp();
    const admin = await loginAdmin(t);
    await t.close({ keepData: true });
    const child = spawn(
      process.execPath,
      [
        'dist/src/cli.js',
        'workspace:create',
        '--name',
        'Compiled',
        '--email',
        'compiled@acme.test',
        '--password',
        'password-4',
      ],
      { env: { PATH: process.env.PATH ?? '', ...cliEnv(t) }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const created = JSON.parse(out) as { workspaceId: string; name: string; adminEmail: string };
    expect(created).toMatchObject({ name: 'Compiled', adminEmail: 'compiled@acme.test' });
    // The CLI released the directory (its lock and the engine's checkpoint): the service opens it and sees the workspace.
    const again = await createTestApp({ reuse: { dataDir: t.dataDir, databaseUrl: t.config.db.url ?? undefined } });
    apps.push(again);
    const owner = await login(again, 'compiled@acme.test', 'password-4', created.workspaceId);
    expect((await again.http.get('/workspace').set(owner.headers).expect(200)).body.name).toBe('Compiled');
    expect(admin.workspaceId).not.toBe(created.workspaceId);
  }, 600_000);

  it('refuses bad arguments before touching the database, and unknown workspaces', async () => {
    const t = await createTestApp();
    apps.push(t);
    await expect(runCli(['workspace:create', '--name', 'X'], cliEnv(t))).rejects.toThrow('--email is required');
    await expect(runCli(['workspace:plan', '--workspace', 'x', '--plan', 'GOLD'], cliEnv(t))).rejects.toBeInstanceOf(
      UsageError,
    );
    await expect(
      runCli(['user:add', '--workspace', 'x', '--email', 'a@b.c', '--password', 'short', '--role', 'AGENT'], cliEnv(t)),
    ).rejects.toThrow('at least 8');
    await expect(runCli(['launch'], cliEnv(t))).rejects.toThrow('Unknown command');
    await expect(
      runCli(['workspace:plan', '--workspace', '00000000-0000-4000-8000-000000000000', '--plan', 'PRO'], cliEnv(t)),
    ).rejects.toThrow('Workspace not found');
  });
});
