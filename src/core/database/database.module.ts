import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from 'src/core/config/config.constants';
import type { AppConfig } from 'src/core/config/app-config';
import { DatabaseRuntime } from './database-runtime';
import { TransactionHost } from './transaction-host';

@Global()
@Module({
  providers: [
    {
      provide: DatabaseRuntime,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => DatabaseRuntime.open(config, { attachToRunning: config.role === 'cli' }),
    },
    { provide: DataSource, inject: [DatabaseRuntime], useFactory: (runtime: DatabaseRuntime) => runtime.dataSource },
    TransactionHost,
  ],
  exports: [DatabaseRuntime, DataSource, TransactionHost],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(DatabaseRuntime) private readonly runtime: DatabaseRuntime) {}

  /** Runs after every BeforeApplicationShutdown hook (workers stop first), then closes the pool and the embedded server. */
  async onApplicationShutdown(): Promise<void> {
    await this.runtime.close();
  }
}
