import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Logger } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module';
import type { AppConfig } from './core/config/app-config';
import { configureApp } from './core/http/configure-app';
import { StartupAwareLogger } from './core/logging/startup-logger';

/** Builds the configured HTTP application (main.ts and the e2e tests share this). */
export async function createApp(
  config: AppConfig,
  options: { logStream?: DestinationStream } = {},
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.register(config, options), {
    rawBody: true,
    bufferLogs: true,
    bodyParser: false,
    // Throw instead of process.exit on a wiring error: main.ts reports it, tests see it.
    abortOnError: false,
  });
  app.useLogger(new StartupAwareLogger(app.get(Logger)));
  configureApp(app, config);
  return app;
}
