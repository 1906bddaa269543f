import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { Ticker } from 'src/core/queue/ticker.service';
import { TransactionHost } from 'src/core/database/transaction-host';
import { EventBus } from 'src/core/events/event-bus';
import { SweepTimer, sweepInRounds } from 'src/core/scheduling/sweep-timer';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { type SlaBreach, SlaBreachSweepRepository } from './sla-breach-sweep.repository';
import { SLA_CHECK_BATCH, SLA_TARGETS } from './sla.constants';

/** Rounds per tick and target: a backlog larger than this waits for the next tick. */
const MAX_ROUNDS = 20;

/**
 * The SLA breach timer. `@Interval` only fires in the `all` and `worker` roles (ScheduleModule is
 * imported there only). Each tick settles every target whose due time passed — once, claimed with
 * FOR UPDATE SKIP LOCKED, so several workers never check (or publish) the same one — and publishes
 * `sla.breached` for each breach, in its workspace's context and in the transaction that marks it.
 */
@Injectable()
export class SlaBreachScheduler implements OnApplicationBootstrap {
  private readonly logger = new Logger('SlaBreaches');
  private readonly timer = new SweepTimer(this.logger, 'SLA breach check failed');

  constructor(
    private readonly tx: TransactionHost,
    private readonly sweeps: SlaBreachSweepRepository,
    private readonly bus: EventBus,
    private readonly ticker: Ticker,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Every SLA_CHECK_TICK_MS (default 30 s), in the `all` and `worker` roles. */
  onApplicationBootstrap(): void {
    this.ticker.every('sla.breaches', this.config.ticks.slaCheckMs, () => this.tick());
  }

  async tick(): Promise<void> {
    await this.timer.run(() => this.checkBreaches());
  }

  /** One check of every due target (exposed for tests and operators); returns the breaches published. */
  async checkBreaches(): Promise<SlaBreach[]> {
    const published: SlaBreach[] = [];
    for (const target of SLA_TARGETS) {
      await sweepInRounds(SLA_CHECK_BATCH, MAX_ROUNDS, async () => {
        const checked = await this.tx.run(async () => {
          const result = await this.sweeps.checkDue(target, SLA_CHECK_BATCH);
          for (const breach of result.breaches) await this.publish(breach);
          return result;
        });
        published.push(...checked.breaches);
        return checked.checked;
      });
    }
    if (published.length) this.logger.log({ breaches: published.length }, 'SLA breaches recorded');
    return published;
  }

  private publish(breach: SlaBreach): Promise<void> {
    return runAsWorkspace(breach.workspaceId, () =>
      this.bus.publish('sla.breached', breach.workspaceId, {
        conversationId: breach.conversationId,
        target: breach.target,
        policyId: breach.policyId,
        policyName: breach.policyName,
        dueAt: breach.dueAt.toISOString(),
        breachedAt: breach.breachedAt.toISOString(),
      }),
    );
  }
}
