import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { AdminClient, type AdminResponse, adminSocketPath } from 'src/core/admin/admin-socket';
import { ROLES, type Role } from 'src/core/auth/roles';
import { PLANS, type WorkspacePlanName, loadConfig } from 'src/core/config/app-config';
import { dataDirOwner } from 'src/core/database/data-dir-lock';
import { EmbeddedPostgres } from 'src/core/database/embedded-postgres';

/*
 * The CLI's front half: argument parsing and the choice of path. It loads neither Nest nor PGlite,
 * so `npm run cli` against a running embedded service costs a Node start and one admin-socket
 * round trip (issue 16 item 6). cli-direct.ts (loaded on demand) and cli-executor.ts run the commands.
 */

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
  'db:query': {
    usage: 'db:query --sql "SELECT ..."',
    summary:
      'Run one read-only SQL statement and print its rows (to inspect data; psql cannot attach to the embedded engine).',
    details: "Runs in a READ ONLY transaction on the service's own connection (embedded) or on DATABASE_URL.",
  },
};

export const USAGE = `Usage: npm run cli -- <command> [options]      (npm run cli -- <command> --help for one command)

Commands:
${Object.entries(COMMANDS)
  .map(([name, help]) => `  ${name.padEnd(17)} ${help.summary}`)
  .join('\n')}

Database: DATABASE_URL when set; otherwise the running service, through its admin socket
(DATA_DIR/admin.sock), or, when the service is stopped, the data directory itself (DATA_DIR, default ./data).
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

function plan(value: string): WorkspacePlanName {
  const upper = value.toUpperCase();
  const found = PLANS.find((p) => p === upper);
  if (!found) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
  return found;
}

function role(value: string): Role {
  const upper = value.toUpperCase();
  const found = ROLES.find((r) => r === upper);
  if (!found) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return found;
}

/** A command's validated arguments (what crosses the admin socket). */
export interface CliArgs {
  readonly name?: string;
  readonly ownerName?: string;
  readonly email?: string;
  readonly password?: string;
  readonly plan?: WorkspacePlanName;
  readonly workspace?: string;
  readonly role?: Role;
  readonly sql?: string;
}

export interface CliRequest {
  readonly command: string;
  readonly args: CliArgs;
}

/** Parses and validates argv; throws HelpRequested or UsageError. */
export function parseCommand(argv: string[]): CliRequest {
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
      sql: { type: 'string' },
    },
    strict: true,
  });
  const args: CliArgs = {
    name: values.name,
    ownerName: values['owner-name'],
    email: values.email?.toLowerCase(),
    password: values.password,
    plan: values.plan ? plan(values.plan) : undefined,
    workspace: values.workspace,
    role: values.role ? role(values.role) : undefined,
    sql: values.sql,
  };
  const given = args as Record<string, string | undefined>;
  if (command === 'workspace:create') {
    required(given, 'name', command);
    required(given, 'email', command);
  } else if (command === 'workspace:plan') {
    required(given, 'workspace', command);
    if (!args.plan) throw new UsageError('--plan is required', command);
  } else if (command === 'user:add') {
    required(given, 'workspace', command);
    required(given, 'email', command);
    if (!args.role) throw new UsageError('--role is required', command);
  } else if (command === 'user:password') {
    required(given, 'email', command);
  } else if (command === 'db:query') {
    required(given, 'sql', command);
  }
  if (args.password !== undefined && args.password.length < 8)
    throw new UsageError('--password must be at least 8 characters', command);
  return { command, args };
}

/** Turns an admin-socket answer back into the result or the error the direct path would have thrown. */
export function unwrapAdminResponse(response: AdminResponse): unknown {
  if (response.ok) return response.result;
  if (response.error.kind === 'usage') throw new UsageError(response.error.message, response.error.command);
  throw new Error(response.error.message);
}

/**
 * Runs one CLI command; `env` is the environment to configure from. Arguments are validated before
 * any database is touched. With DATABASE_URL the command runs here against PostgreSQL; on the
 * embedded engine a running service (the owner of DATA_DIR's lock) executes it, reached through
 * DATA_DIR/admin.sock; when no service runs, the command opens the data directory itself.
 */
export async function runCli(argv: string[], env: Record<string, string | undefined>): Promise<unknown> {
  const request = parseCommand(argv);
  const config = loadConfig({ ...env, APP_ROLE: 'cli', LOG_LEVEL: env.LOG_LEVEL ?? 'warn' });
  if (!config.db.url) {
    const owner = dataDirOwner(config.dataDir);
    if (owner !== null) {
      let client: AdminClient;
      try {
        client = await AdminClient.connect(adminSocketPath(config.dataDir));
      } catch (error) {
        throw new Error(
          `The embedded database in ${config.dataDir} is in use by process ${owner}, and its admin socket ` +
            `cannot be used (${error instanceof Error ? error.message : String(error)}). If the service is ` +
            `still starting, retry in a moment; otherwise stop process ${owner}.`,
        );
      }
      try {
        return unwrapAdminResponse(
          await client.request({ op: 'cli', command: request.command, args: { ...request.args } }),
        );
      } finally {
        client.close();
      }
    }
  }
  // The data directory itself: the embedded engine starts in its worker thread (or its WebAssembly
  // compiles) while the command's modules load.
  if (!config.db.url) EmbeddedPostgres.startEarly(config.dataDir, { ownThread: true });
  const { runCommandDirect } = await directPath();
  return runCommandDirect(config, request);
}

/**
 * The direct path's code: compiled, its bundle (dist/bundle/cli-direct.js, made by scripts/bundle.mjs:
 * one file to compile instead of several hundred ES modules, issue 16 item 6); under Jest, which runs
 * the sources as ES modules (no `__dirname`), the module itself.
 */
function directPath(): Promise<typeof import('./cli-direct.js')> {
  const bundled = typeof __dirname === 'string' ? join(__dirname, '..', 'bundle', 'cli-direct.js') : null;
  return bundled && existsSync(bundled) ? import(pathToFileURL(bundled).href) : import('./cli-direct.js');
}
