import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { AppModule } from 'src/app.module';
import type { CliRequest } from 'src/cli-commands';
import { executeCommand } from 'src/cli-executor';
import type { AppConfig } from 'src/core/config/app-config';
import { seedDemo } from 'src/demo-seed';

/** The direct path: no service owns the database (PostgreSQL, or a stopped data directory). */
export async function runCommandDirect(config: AppConfig, request: CliRequest): Promise<unknown> {
  if (request.command === 'demo:seed') return seedDemo(config, request.args.workspace);
  const app = await NestFactory.createApplicationContext(AppModule.register(config), {
    logger: ['error'],
    abortOnError: false,
  });
  try {
    return await executeCommand({ get: (type) => app.get(type), httpBase: () => null }, request);
  } finally {
    await app.close();
  }
}
