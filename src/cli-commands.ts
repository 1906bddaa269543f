import { NestFactory } from '@nestjs/core';
import { parseArgs } from 'node:util';
import { AppModule } from 'src/app.module';
import { ROLES, type Role } from 'src/core/auth/roles';
import { loadConfig } from 'src/core/config/app-config';
import { seedDemo } from 'src/demo-seed';
import { AppException } from 'src/core/errors/app.exception';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { UsersService } from 'src/modules/users';
import { MembersService, WORKSPACE_PLANS, type WorkspacePlan, WorkspacesService } from 'src/modules/workspaces';

interface CommandHelp {
  readonly usage: string;
  readonly summary: string;
  readonly details?: string;
}

/** Every command, its synopsis and what it does (`--help` and `<command> --help` print these). */
export const COMMANDS: Record<string, CommandHelp> = {
  'workspace:create': {
    usage:
      'workspace:create --name NAME --email EMAIL [--password PASSWORD] [--owner-name NAME] [--plan STARTER|PRO|ENTERPRISE]',
    summary: 'Create a workspace and its ADMIN (a new user needs --password; an existing user is reused).',
  },
  'workspace:plan': {
    usage: 'workspace:plan --workspace ID --plan STARTER|PRO|ENTERPRISE',
    summary: "Change a workspace's plan.",
  },
  'workspace:list': {
    usage: 'workspace:list',
    summary: 'List every workspace (id, name, plan, member count).',
  },
  'user:add': {
    usage: 'user:add --workspace ID --email EMAIL --role ADMIN|SUPERVISOR|AGENT [--password PASSWORD] [--name NAME]',
    summary: 'Add a user to a workspace: a new user needs --password; an existing user is added as is.',
    details: '--password with an existing email is refused (it would not change their password): use user:password.',
  },
  'user:list': {
    usage: 'user:list [--workspace ID]',
    summary: "List a workspace's members with their roles, or every user and their workspaces.",
  },
  'demo:seed': {
    usage: 'demo:seed [--workspace ID]',
    summary:
      'Fill a workspace (default: the first one) with demo contacts, a Custom Channel, conversations, tickets and a catalogue.',
    details: 'Runs the public API in-process; the Custom Channel and its conversations need the ENTERPRISE plan.',
  },
  'user:password': {
    usage: 'user:password --email EMAIL [--password PASSWORD]',
    summary: "Set a user's password; without --password a password is generated and printed once.",
  },
};

export const USAGE = `Usage: npm run cli -- <command> [options]      (npm run cli -- <command> --help for one command)

Commands:
${Object.entries(COMMANDS)
  .map(([name, help]) => `  ${name.padEnd(17)} ${help.summary}`)
  .join('\n')}

Database: DATABASE_URL when set; otherwise the running service's embedded database (DATA_DIR/db-url),
or, when the service is stopped, the data directory itself (DATA_DIR, default ./data).
Output: JSON on stdout. Exit codes: 0 ok, 1 error, 2 usage.`;

export function commandHelp(command: string): string {
  const help = COMMANDS[command]!;
  return `Usage: npm run cli -- ${help.usage}\n\n${help.summary}${help.details ? `\n${help.details}` : ''}`;
}

export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

/** `--help`: not an error; the text to print is the message. */
export class HelpRequested extends Error {}

function required(values: Record<string, string | undefined>, key: string, command: string): string {
  const value = values[key];
  if (!value) throw new UsageError(`--${key} is required`, command);
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
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    const topic = command === 'help' ? rest[0] : undefined;
    throw new HelpRequested(topic && COMMANDS[topic] ? commandHelp(topic) : USAGE);
  }
  if (!COMMANDS[command]) throw new UsageError(`Unknown command '${command}'`);
  if (rest.includes('--help') || rest.includes('-h')) throw new HelpRequested(commandHelp(command));
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: 'string' },
      'owner-name': { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      plan: { type: 'string' },
      workspace: { type: 'string' },
      role: { type: 'string' },
    },
    strict: true,
  });
  // Validate the arguments before opening the database.
  const args = {
    name: values.name,
    ownerName: values['owner-name'],
    email: values.email?.toLowerCase(),
    password: values.password,
    plan: values.plan ? plan(values.plan) : undefined,
    workspace: values.workspace,
    role: values.role ? role(values.role) : undefined,
  };
  if (command === 'workspace:create') {
    required(args, 'name', command);
    required(args, 'email', command);
  } else if (command === 'workspace:plan') {
    required(args, 'workspace', command);
    if (!args.plan) throw new UsageError('--plan is required', command);
  } else if (command === 'user:add') {
    required(args, 'workspace', command);
    required(args, 'email', command);
    if (!args.role) throw new UsageError('--role is required', command);
  } else if (command === 'user:password') {
    required(args, 'email', command);
  }
  if (args.password !== undefined && args.password.length < 8)
    throw new UsageError('--password must be at least 8 characters', command);

  const config = loadConfig({ ...env, APP_ROLE: 'cli', LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
  if (command === 'demo:seed') return seedDemo(config, args.workspace);
  const app = await NestFactory.createApplicationContext(AppModule.register(config), {
    logger: ['error'],
    abortOnError: false,
  });
  try {
    const workspaces = app.get(WorkspacesService);
    const users = app.get(UsersService);
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
