import type { Abstract, Type } from '@nestjs/common';
import { type CliRequest, UsageError } from 'src/cli-commands';
import { DatabaseRuntime } from 'src/core/database/database-runtime';
import { AppException } from 'src/core/errors/app.exception';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { UsersService } from 'src/modules/users';
import { MembersService, WorkspacesService } from 'src/modules/workspaces';

/** What a command needs from the application it runs in (the CLI's own context, or the running service). */
export interface CommandContext {
  get<T>(type: Type<T> | Abstract<T>): T;
  /** The base URL of this process's HTTP server, when it listens (demo:seed calls the public API). */
  httpBase(): string | null;
}

/**
 * Runs one parsed CLI command inside an application: the CLI's own (direct path) or the running
 * embedded service's (admin socket, src/admin-channel.ts). Business rules stay in the services.
 */
export async function executeCommand(ctx: CommandContext, { command, args }: CliRequest): Promise<unknown> {
  const workspaces = ctx.get(WorkspacesService);
  const users = ctx.get(UsersService);
  if (command === 'demo:seed') {
    const base = ctx.httpBase();
    if (!base) throw new Error('demo:seed needs the service to listen on HTTP');
    // Loaded here only: it imports the whole application (the CLI's lean context does not).
    const { seedDemoThrough } = await import('./demo-seed.js');
    return seedDemoThrough((type) => ctx.get(type), base, args.workspace);
  }
  if (command === 'db:query') return { rows: await readOnlyQuery(ctx.get(DatabaseRuntime), args.sql!) };
  if (command === 'workspace:list') return { data: await workspaces.listAll() };
  if (command === 'user:list') {
    if (!args.workspace) return { data: await workspaces.listUsers() };
    const workspace = await workspaces.findById(args.workspace);
    if (!workspace) throw AppException.notFound('Workspace');
    return { workspaceId: workspace.id, data: await workspaces.listMembers(workspace.id) };
  }
  if (command === 'user:password') {
    const user = await users.findByEmail(args.email!);
    if (!user) throw AppException.notFound('User');
    if (args.password) {
      await users.setPassword(user.id, args.password);
      return { userId: user.id, email: user.email, passwordChanged: true };
    }
    return { userId: user.id, email: user.email, temporaryPassword: await users.resetPassword(user.id) };
  }
  if (command === 'workspace:create') {
    const existing = await users.findByEmail(args.email!);
    if (existing && args.password)
      throw AppException.conflict(
        `${existing.email} already exists; --password would not change it (drop it to reuse the user, or use user:password)`,
      );
    const owner =
      existing ??
      (await users.findOrCreate({ email: args.email!, name: args.ownerName ?? args.name!, password: args.password }));
    const workspace = await workspaces.create({ name: args.name!, plan: args.plan ?? 'STARTER', ownerId: owner.id });
    return { workspaceId: workspace.id, name: workspace.name, plan: workspace.plan, adminEmail: owner.email };
  }
  if (command !== 'workspace:plan' && command !== 'user:add') throw new Error(`Unknown command '${command}'`);
  const workspace = await workspaces.findById(args.workspace!);
  if (!workspace) throw AppException.notFound('Workspace');
  if (command === 'workspace:plan') {
    const updated = await workspaces.setPlan(workspace.id, args.plan!);
    return { workspaceId: updated.id, plan: updated.plan };
  }
  const existing = await users.findByEmail(args.email!);
  if (existing && args.password)
    throw AppException.conflict(
      `${existing.email} already exists; --password would not change their password (drop --password to add them as they are, or use user:password)`,
    );
  if (!existing && !args.password) throw new UsageError('--password is required for a new user', command);
  const member = await runAsWorkspace(workspace.id, () =>
    ctx.get(MembersService).addMember({
      email: args.email!,
      name: args.name ?? args.email!.split('@')[0]!,
      password: args.password,
      role: args.role!,
    }),
  );
  return { workspaceId: workspace.id, ...member };
}

/** One statement in a READ ONLY transaction, always rolled back. */
async function readOnlyQuery(runtime: DatabaseRuntime, sql: string): Promise<unknown[]> {
  const runner = runtime.dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('BEGIN READ ONLY');
    try {
      return (await runner.query(sql, undefined, true)).records as unknown[];
    } finally {
      await runner.query('ROLLBACK');
    }
  } finally {
    await runner.release();
  }
}

/** One statement with parameters (the admin socket's `sql` request: the bench seeds through it). */
export async function adminSql(
  runtime: DatabaseRuntime,
  sql: string,
  params: readonly unknown[] = [],
): Promise<{ rows: unknown[]; rowCount: number | undefined }> {
  const runner = runtime.dataSource.createQueryRunner();
  try {
    const result = await runner.query(sql, [...params], true);
    return { rows: (result.records as unknown[] | undefined) ?? [], rowCount: result.affected };
  } finally {
    await runner.release();
  }
}
