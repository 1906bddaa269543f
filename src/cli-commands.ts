import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { AppModule } from 'src/app.module';
import { ROLES, type Role } from 'src/core/auth/roles';
import { loadConfig } from 'src/core/config/app-config';
import { AppException } from 'src/core/errors/app.exception';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { UsersService } from 'src/modules/users';
import { MembersService, WORKSPACE_PLANS, type WorkspacePlan, WorkspacesService } from 'src/modules/workspaces';

export const USAGE = `Usage:
  npm run cli -- workspace:create --name NAME --email EMAIL --password PASSWORD [--plan STARTER|PRO|ENTERPRISE]
  npm run cli -- workspace:plan --workspace ID --plan STARTER|PRO|ENTERPRISE
  npm run cli -- user:add --workspace ID --email EMAIL --password PASSWORD --role ADMIN|SUPERVISOR|AGENT [--name NAME]

Database: DATABASE_URL when set; otherwise the running service's embedded database (DATA_DIR/db-url),
or, when the service is stopped, the data directory itself (DATA_DIR, default ./data).`;

export class UsageError extends Error {}

function required(values: Record<string, string | undefined>, key: string): string {
  const value = values[key];
  if (!value) throw new UsageError(`--${key} is required`);
  return value;
}

function plan(value: string): WorkspacePlan {
  const upper = value.toUpperCase();
  const found = WORKSPACE_PLANS.find((p) => p === upper);
  if (!found) throw new UsageError(`--plan must be one of ${WORKSPACE_PLANS.join(', ')}`);
  return found;
}

function role(value: string): Role {
  const upper = value.toUpperCase();
  const found = ROLES.find((r) => r === upper);
  if (!found) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return found;
}

/** Runs one CLI command; `env` is the environment to configure from. */
export async function runCli(argv: string[], env: Record<string, string | undefined>): Promise<unknown> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      plan: { type: 'string' },
      workspace: { type: 'string' },
      role: { type: 'string' },
    },
    strict: true,
  });
  if (!command || !['workspace:create', 'workspace:plan', 'user:add'].includes(command))
    throw new UsageError('Unknown command');
  // Validate the arguments before opening the database.
  const args = {
    name: values.name,
    email: values.email?.toLowerCase(),
    password: values.password,
    plan: values.plan ? plan(values.plan) : undefined,
    workspace: values.workspace,
    role: values.role ? role(values.role) : undefined,
  };
  if (command === 'workspace:create') {
    required(args, 'name');
    required(args, 'email');
    required(args, 'password');
  } else if (command === 'workspace:plan') {
    required(args, 'workspace');
    if (!args.plan) throw new UsageError('--plan is required');
  } else {
    required(args, 'workspace');
    required(args, 'email');
    required(args, 'password');
    if (!args.role) throw new UsageError('--role is required');
  }
  if (args.password && args.password.length < 8) throw new UsageError('--password must be at least 8 characters');

  const config = loadConfig({ ...env, APP_ROLE: 'cli', LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
  const app = await NestFactory.createApplicationContext(AppModule.register(config), {
    logger: ['error'],
    abortOnError: false,
  });
  try {
    const workspaces = app.get(WorkspacesService);
    if (command === 'workspace:create') {
      const users = app.get(UsersService);
      const owner = await users.findOrCreate({ email: args.email!, name: args.name!, password: args.password });
      const workspace = await workspaces.create({ name: args.name!, plan: args.plan ?? 'STARTER', ownerId: owner.id });
      return { workspaceId: workspace.id, name: workspace.name, plan: workspace.plan, adminEmail: owner.email };
    }
    const workspace = await workspaces.findById(args.workspace!);
    if (!workspace) throw AppException.notFound('Workspace');
    if (command === 'workspace:plan') {
      const updated = await workspaces.setPlan(workspace.id, args.plan!);
      return { workspaceId: updated.id, plan: updated.plan };
    }
    const member = await runAsWorkspace(workspace.id, () =>
      app.get(MembersService).addMember({
        email: args.email!,
        name: args.name ?? args.email!.split('@')[0]!,
        password: args.password,
        role: args.role!,
      }),
    );
    return { workspaceId: workspace.id, ...member };
  } finally {
    await app.close();
  }
}
