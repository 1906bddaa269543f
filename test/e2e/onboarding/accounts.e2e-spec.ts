import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HelpRequested, UsageError, runCli } from 'src/cli-commands';
import { addMember, login, loginAdmin, signupWorkspace } from '../../utils/sessions';
import { TEST_ADMIN_EMAIL, type TestApp, createTestApp } from '../../utils/test-app';

function cliEnv(t: TestApp): Record<string, string> {
  return {
    DATA_DIR: t.dataDir,
    ...(t.config.db.url ? { DATABASE_URL: t.config.db.url } : {}),
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
  };
}

describe('accounts: change and reset passwords, CLI help and listings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  }, 180_000);
  afterAll(() => t.close());

  it('PUT /auth/password changes the caller password (current + new) → 204', async () => {
    const admin = await signupWorkspace(t);
    await t.http
      .put('/auth/password')
      .set({ authorization: admin.headers.authorization! })
      .send({ currentPassword: 'password-123', newPassword: 'a-new-password-1' })
      .expect(204);
    await t.http.post('/auth/login').send({ email: admin.email, password: 'password-123' }).expect(401);
    await login(t, admin.email, 'a-new-password-1');
  });

  it('refuses a wrong current password, a short new one, a missing field, and API tokens', async () => {
    const admin = await signupWorkspace(t);
    const auth = { authorization: admin.headers.authorization! };
    const wrong = await t.http
      .put('/auth/password')
      .set(auth)
      .send({ currentPassword: 'nope-nope-1', newPassword: 'a-new-password-1' })
      .expect(400);
    expect(wrong.body.details).toEqual([{ field: 'currentPassword', message: 'is not your current password' }]);
    const short = await t.http
      .put('/auth/password')
      .set(auth)
      .send({ currentPassword: 'password-123', newPassword: 'x' })
      .expect(400);
    expect(short.body.details[0].field).toBe('newPassword');
    const missing = await t.http.put('/auth/password').set(auth).send({ newPassword: 'a-new-password-1' }).expect(400);
    expect(missing.body.message).toBe('currentPassword is required');
    await t.http.put('/auth/password').send({ currentPassword: 'a', newPassword: 'b' }).expect(401);
    const token = await t.http.post('/developer/tokens').set(admin.headers).send({ name: 'x' }).expect(201);
    await t.http
      .put('/auth/password')
      .set({ authorization: `Bearer ${token.body.token}` })
      .send({ currentPassword: 'password-123', newPassword: 'a-new-password-1' })
      .expect(403);
  });

  it('an admin resets a member to a one-time password shown once; agents may not', async () => {
    const admin = await signupWorkspace(t);
    const agent = await addMember(t, admin, 'AGENT');
    await t.http.post(`/workspace/members/${admin.userId}/reset-password`).set(agent.headers).expect(403);
    const res = await t.http.post(`/workspace/members/${agent.userId}/reset-password`).set(admin.headers).expect(200);
    expect(res.body).toEqual({ userId: agent.userId, email: agent.email, temporaryPassword: expect.any(String) });
    expect(res.body.temporaryPassword.length).toBeGreaterThanOrEqual(12);
    await t.http.post('/auth/login').send({ email: agent.email, password: 'password-123' }).expect(401);
    await login(t, agent.email, res.body.temporaryPassword);
  });

  it('never resets across workspaces: another workspace member is 404, a user of two workspaces is 409', async () => {
    const a = await signupWorkspace(t, 'A');
    const b = await signupWorkspace(t, 'B');
    const agentB = await addMember(t, b, 'AGENT');
    await t.http.post(`/workspace/members/${agentB.userId}/reset-password`).set(a.headers).expect(404);
    // agentB also joins A: an admin of A alone must not take over an account B uses too.
    await t.http
      .post('/workspace/members')
      .set(a.headers)
      .send({ email: agentB.email, name: 'shared', role: 'AGENT' })
      .expect(201);
    const res = await t.http.post(`/workspace/members/${agentB.userId}/reset-password`).set(a.headers).expect(409);
    expect(res.body.code).toBe('conflict');
    await login(t, agentB.email, 'password-123');
  });

  it('cli: --help, per-command help, user:password, user:add --password on an existing user, listings', async () => {
    await expect(runCli(['--help'], cliEnv(t))).rejects.toBeInstanceOf(HelpRequested);
    await expect(runCli(['--help'], cliEnv(t))).rejects.toThrow(/workspace:list[\s\S]*user:password/);
    await expect(runCli(['user:add', '--help'], cliEnv(t))).rejects.toThrow(
      /Usage: npm run cli -- user:add --workspace ID/,
    );
    await expect(runCli(['help', 'user:list'], cliEnv(t))).rejects.toThrow(/user:list \[--workspace ID\]/);

    const admin = await loginAdmin(t);
    const conflict = runCli(
      [
        'user:add',
        '--workspace',
        admin.workspaceId,
        '--email',
        TEST_ADMIN_EMAIL,
        '--password',
        'other-password',
        '--role',
        'AGENT',
      ],
      cliEnv(t),
    );
    await expect(conflict).rejects.toThrow(/already exists; --password would not change/);
    await expect(
      runCli(['user:add', '--workspace', admin.workspaceId, '--email', 'new@acme.test', '--role', 'AGENT'], cliEnv(t)),
    ).rejects.toBeInstanceOf(UsageError);

    const set = (await runCli(['user:password', '--email', 'NEW-cli@acme.test'], cliEnv(t)).catch(
      (e: Error) => e,
    )) as Error;
    expect(set.message).toMatch(/User not found/);
    const other = await signupWorkspace(t, 'Cli');
    const changed = await runCli(['user:password', '--email', other.email, '--password', 'cli-password-1'], cliEnv(t));
    expect(changed).toMatchObject({ email: other.email, passwordChanged: true });
    await login(t, other.email, 'cli-password-1');
    const generated = (await runCli(['user:password', '--email', other.email], cliEnv(t))) as {
      temporaryPassword: string;
    };
    await login(t, other.email, generated.temporaryPassword);

    const workspaces = (await runCli(['workspace:list'], cliEnv(t))) as { data: { id: string; members: number }[] };
    expect(workspaces.data.find((w) => w.id === admin.workspaceId)).toMatchObject({ members: expect.any(Number) });
    const members = (await runCli(['user:list', '--workspace', other.workspaceId], cliEnv(t))) as {
      data: { email: string; role: string }[];
    };
    expect(members.data).toEqual([{ userId: other.userId, email: other.email, name: 'Owner', role: 'ADMIN' }]);
    const all = (await runCli(['user:list'], cliEnv(t))) as { data: { email: string; workspaces: string[] }[] };
    expect(all.data.find((u) => u.email === other.email)?.workspaces).toEqual([other.workspaceId]);
  });
});
