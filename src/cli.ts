import { ConfigError } from './core/config/app-config';
import { HelpRequested, USAGE, UsageError, commandHelp, runCli } from './cli-commands';

// The one place besides main.ts that reads the environment. Loads no Nest: a running embedded
// service executes the command (admin socket); cli-direct.ts is imported only when none runs.
// eslint-disable-next-line no-restricted-properties
runCli(process.argv.slice(2), process.env).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  },
  (error: unknown) => {
    if (error instanceof HelpRequested) {
      process.stdout.write(`${error.message}\n`);
      process.exit(0);
    }
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
      const help = error instanceof UsageError && error.command ? commandHelp(error.command) : USAGE;
      process.stderr.write(`${error.message}\n\n${help}\n`);
      process.exit(2);
    }
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
