import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { ConfigModule } from 'src/core/config/config.module';
import { CacheInvalidation } from 'src/core/events/cache-invalidation';
import { EventBus } from 'src/core/events/event-bus';
import { DatabaseModule } from 'src/core/database/database.module';
import { UsersModule } from 'src/modules/users';
import { WorkspacesModule } from 'src/modules/workspaces';

/**
 * The two platform services the CLI's modules use (queues' routing publishes through the EventBus;
 * workspaces bump cache versions). Not CoreModule: its rate limiter, outbound HTTP, crypto and
 * timers load Redis, HTTP and metrics clients no command uses.
 */
@Global()
@Module({ providers: [EventBus, CacheInvalidation], exports: [EventBus, CacheInvalidation] })
class CliCoreModule {}

/**
 * What the CLI's direct path (cli-direct.ts: PostgreSQL, or a stopped data directory) runs its
 * commands in: the configuration, two platform services, the database and the modules whose
 * services cli-executor.ts calls (users, workspaces and, through them, queues). Not the whole
 * AppModule: the other domain modules, the job queue (these commands enqueue nothing), HTTP,
 * logging and timers take no part in these commands and cost about a second of CPU per command
 * (issue 16 item 6). demo:seed runs the public API, so it still starts the whole application
 * (demo-seed.ts).
 */
@Module({})
export class CliModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [ConfigModule.forRoot(config), CliCoreModule, DatabaseModule, UsersModule, WorkspacesModule],
    };
  }
}
