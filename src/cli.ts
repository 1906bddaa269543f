import 'reflect-metadata';
import { ConfigError } from './core/config/app-config';
import { AppException } from './core/errors/app.exception';
import { USAGE, UsageError, runCli } from './cli-commands';

// The one place besides main.ts that reads the environment.
// eslint-disable-next-line no-restricted-properties
runCli(process.argv.slice(2), process.env).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  },
  (error: unknown) => {
    if (error instanceof UsageError || (error instanceof TypeError && 'code' in error)) {
      process.stderr.write(`${error.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    if (error instanceof ConfigError || error instanceof AppException) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
