import 'reflect-metadata';
import { ConfigError, loadConfig } from './core/config/app-config';
import { createApp } from './create-app';
import { Logger } from 'nestjs-pino';

async function main(): Promise<void> {
  let config;
  try {
    // The one place the environment is read.
    // eslint-disable-next-line no-restricted-properties
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const started = Date.now();
  const app = await createApp(config);
  if (config.role === 'worker') {
    await app.init();
  } else {
    await app.listen(config.port);
  }
  app
    .get(Logger)
    .log(
      `Support Inbox Service ready (role ${config.role}, port ${config.port}) in ${Date.now() - started} ms`,
      'Main',
    );
}

void main().catch((error: unknown) => {
  process.stderr.write(`Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
