import { type DynamicModule, Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from 'src/core/config/config.constants';
import type { AppConfig } from 'src/core/config/app-config';
import { DatabaseRuntime } from './database-runtime';
import { type EntityClass, registerEntities } from './entity-registry';
import { TransactionHost } from './transaction-host';

/** What `DatabaseModule.forEntities` returns: nothing to provide, the registration is the point. */
@Module({})
export class EntitiesRegistration {}

@Global()
@Module({
  providers: [
    {
      provide: DatabaseRuntime,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => DatabaseRuntime.open(config),
    },
    { provide: DataSource, inject: [DatabaseRuntime], useFactory: (runtime: DatabaseRuntime) => runtime.dataSource },
    TransactionHost,
  ],
  exports: [DatabaseRuntime, DataSource, TransactionHost],
})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(DatabaseRuntime) private readonly runtime: DatabaseRuntime) {}

  /**
   * A module registers the entities of the tables it owns: `imports: [DatabaseModule.forEntities([XEntity])]`.
   * The DataSource is built with every registered entity; core never imports a module.
   */
  static forEntities(entities: readonly EntityClass[]): DynamicModule {
    registerEntities(entities);
    return { module: EntitiesRegistration };
  }

  /** Runs after every BeforeApplicationShutdown hook (workers stop first), then closes the pool and the embedded server. */
  async onApplicationShutdown(): Promise<void> {
    await this.runtime.close();
  }
}
