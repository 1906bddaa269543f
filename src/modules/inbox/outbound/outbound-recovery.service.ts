import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Timeout } from '@nestjs/schedule';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { Ticker } from 'src/core/queue/ticker.service';
import { StartupCutoff, SweepTimer, sweepInRounds } from 'src/core/scheduling/sweep-timer';
import { OutboundDeliveryService } from './outbound-delivery.service';
import { OutboundSweepRepository } from './outbound-sweep.repository';

const STARTUP_DELAY_MS = 1_000;
const STALE_MS = 60_000;
const BATCH = 500;
const MAX_ROUNDS = 20;

/**
 * Outbound messages are never stuck PENDING: at start-up every due one older than this service instance is
 * re-queued (in-process timers died with the old process), and every 30 s those overdue for a minute. Worker roles only.
 */
@Injectable()
export class OutboundRecoveryService implements OnApplicationBootstrap {
  private readonly logger = new Logger('OutboundRecovery');
  private readonly timer = new SweepTimer(this.logger, 'Outbound recovery sweep failed', 'warn');
  private readonly startup = new StartupCutoff();

  constructor(
    private readonly sweeps: OutboundSweepRepository,
    private readonly delivery: OutboundDeliveryService,
    private readonly ticker: Ticker,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Timeout(STARTUP_DELAY_MS)
  async onStartup(): Promise<void> {
    await this.timer.run(() => this.sweep(this.startup.olderThanMs()));
  }

  /** Every OUTBOUND_SWEEP_TICK_MS (default 30 s), in the `all` and `worker` roles. */
  onApplicationBootstrap(): void {
    this.ticker.every('outbound.sweep', this.config.ticks.outboundSweepMs, () => this.onInterval());
  }

  async onInterval(): Promise<void> {
    await this.timer.run(() => this.sweep(STALE_MS));
  }

  /** One sweep; exposed for tests and operators. Returns how many messages were re-queued. */
  async sweep(olderThanMs = STALE_MS): Promise<number> {
    const requeued = await sweepInRounds(BATCH, MAX_ROUNDS, async () => {
      const due = await this.sweeps.takeDue(olderThanMs, BATCH);
      await Promise.all(due.map((m) => this.delivery.enqueue(m.workspaceId, m.id, `${m.id}-sweep-${m.attempts}`)));
      return due.length;
    });
    if (requeued) this.logger.log({ requeued }, 'Recovered outbound messages');
    return requeued;
  }
}
