import { type DynamicModule, Module } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { ConfigModule } from 'src/core/config/config.module';
import { CoreModule } from 'src/core/core.module';
import { DatabaseModule } from 'src/core/database/database.module';
import { UsersModule } from 'src/modules/users';
import { WorkspacesModule } from 'src/modules/workspaces';

/**
 * What the CLI's direct path (cli-direct.ts: PostgreSQL, or a stopped data directory) runs its
 * commands in: the configuration, the platform services, the database and the modules whose
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
      imports: [ConfigModule.forRoot(config), CoreModule, DatabaseModule, UsersModule, WorkspacesModule],
    };
  }
}
