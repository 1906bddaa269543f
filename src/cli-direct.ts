import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { CliRequest } from 'src/cli-commands';
import { executeCommand } from 'src/cli-executor';
import type { AppConfig } from 'src/core/config/app-config';
import { CliModule } from 'src/cli-module';

/** The direct path: no service owns the database (PostgreSQL, or a stopped data directory). */
export async function runCommandDirect(config: AppConfig, request: CliRequest): Promise<unknown> {
  if (request.command === 'demo:seed') {
    const { seedDemo } = await import('./demo-seed.js');
    return seedDemo(config, request.args.workspace);
  }
  const app = await NestFactory.createApplicationContext(CliModule.register(config), {
    logger: ['error'],
    abortOnError: false,
  });
  try {
    return await executeCommand({ get: (type) => app.get(type), httpBase: () => null }, request);
  } finally {
    await app.close();
  }
}
