import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { Ticker } from 'src/core/queue/ticker.service';
import { Interval } from '@nestjs/schedule';
import { TransactionHost } from 'src/core/database/transaction-host';
import { SweepTimer } from 'src/core/scheduling/sweep-timer';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { CatalogWebsitesService } from './catalog-websites.service';
import { CatalogueSystemRepository } from './catalogue-system.repository';

/** How often the worker looks for due website syncs by default (CATALOGUE_SYNC_TICK_MS); a sync starts at most this late. */
export const SYNC_TICK_MS = 30_000;
/** How often expired CSV import sessions are deleted. */
export const IMPORT_CLEANUP_MS = 10 * 60_000;
/** Due connections claimed per tick (the rest wait for the next tick). */
const CLAIM_LIMIT = 50;

/**
 * The catalogue's timers. `@Interval` only fires in the `all` and `worker` roles (ScheduleModule is
 * imported there only). Safe with many workers: due connections are claimed with FOR UPDATE SKIP
 * LOCKED and moved to their next slot in the same statement, and the claim and the runs it starts
 * commit together, so each due sync starts once. `nextSyncAt` lives in the database: restarts lose nothing.
 */
@Injectable()
export class CatalogueScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('CatalogueScheduler');
  private readonly syncTimer = new SweepTimer(this.logger, 'Catalogue sync tick failed');
  private readonly cleanupTimer = new SweepTimer(this.logger, 'Catalogue import cleanup failed');

  constructor(
    private readonly system: CatalogueSystemRepository,
    private readonly websites: CatalogWebsitesService,
    private readonly tx: TransactionHost,
    private readonly ticker: Ticker,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Every CATALOGUE_SYNC_TICK_MS, in the `all` and `worker` roles. */
  onApplicationBootstrap(): void {
    this.ticker.every('catalogue.sync', this.config.ticks.catalogueSyncMs, () => this.syncTick());
  }

  async syncTick(): Promise<void> {
    await this.syncTimer.run(() => this.startDueSyncs());
  }

  /** Claims due connections of every workspace and starts a SCHEDULE run for each; returns the runs started. */
  async startDueSyncs(): Promise<string[]> {
    return this.tx.run(async () => {
      const started: string[] = [];
      for (const due of await this.system.claimDueWebsites(CLAIM_LIMIT)) {
        const run = await runAsWorkspace(due.workspaceId, () => this.websites.startRun(due.id, 'SCHEDULE', false));
        if (run) started.push(run.id);
      }
      return started;
    });
  }

  @Interval(IMPORT_CLEANUP_MS)
  async cleanupImports(): Promise<void> {
    await this.cleanupTimer.run(async () => {
      const deleted = await this.system.deleteExpiredImports();
      if (deleted > 0) this.logger.log(`Deleted ${deleted} expired catalogue import session(s)`);
    });
  }
}
