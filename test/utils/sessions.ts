import { randomBytes } from 'node:crypto';
import { WorkspacesService } from 'src/modules/workspaces/workspaces.service';
import type { TestApp } from './test-app';
import { TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD } from './test-app';

export interface Session {
  readonly token: string;
  readonly userId: string;
  readonly workspaceId: string;
  readonly email: string;
  /** Headers for a user JWT request in this workspace. */
  readonly headers: Record<string, string>;
}

function sessionOf(
  body: { accessToken: string; user: { id: string; email: string }; workspaces: { id: string }[] },
  workspaceId?: string,
): Session {
  const ws = workspaceId ?? body.workspaces[0]!.id;
  return {
    token: body.accessToken,
    userId: body.user.id,
    workspaceId: ws,
    email: body.user.email,
    headers: { authorization: `Bearer ${body.accessToken}`, 'x-workspace-id': ws },
  };
}

export async function login(t: TestApp, email: string, password: string, workspaceId?: string): Promise<Session> {
  const res = await t.http.post('/auth/login').send({ email, password }).expect(200);
  return sessionOf(res.body, workspaceId);
}

/** The bootstrap admin of the ENTERPRISE bootstrap workspace. */
export function loginAdmin(t: TestApp): Promise<Session> {
  return login(t, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD);
}

/** A brand-new STARTER workspace with a new admin (fresh tenant per test). */
export async function signupWorkspace(t: TestApp, name = 'Workspace'): Promise<Session> {
  const email = `owner-${randomBytes(5).toString('hex')}@example.com`;
  const res = await t.http
    .post('/auth/signup')
    .send({
      workspaceName: `${name} ${randomBytes(3).toString('hex')}`,
      name: 'Owner',
      email,
      password: 'password-123',
    })
    .expect(201);
  return sessionOf(res.body);
}

/** Adds a member with a role and logs them in. */
export async function addMember(t: TestApp, admin: Session, role: 'ADMIN' | 'SUPERVISOR' | 'AGENT'): Promise<Session> {
  const email = `${role.toLowerCase()}-${randomBytes(5).toString('hex')}@example.com`;
  await t.http
    .post('/workspace/members')
    .set(admin.headers)
    .send({ email, name: `${role} user`, role, password: 'password-123' })
    .expect(201);
  return login(t, email, 'password-123', admin.workspaceId);
}

/** An API token of the session's workspace; returns the Authorization header. */
export async function apiToken(
  t: TestApp,
  admin: Session,
  scopes: string[] = [],
): Promise<{ token: string; headers: Record<string, string> }> {
  const res = await t.http
    .post('/developer/tokens')
    .set(admin.headers)
    .send({ name: 'test token', scopes })
    .expect(201);
  return { token: res.body.token, headers: { authorization: `Bearer ${res.body.token}` } };
}

/** Changes a workspace's plan the way the CLI does (the API cannot). */
export async function setPlan(t: TestApp, workspaceId: string, plan: 'STARTER' | 'PRO' | 'ENTERPRISE'): Promise<void> {
  await t.app.get(WorkspacesService).setPlan(workspaceId, plan);
}
