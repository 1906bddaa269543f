import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { Timeout } from '@nestjs/schedule';
import { Ticker } from 'src/core/queue/ticker.service';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { StartupCutoff, SweepTimer, sweepInRounds } from 'src/core/scheduling/sweep-timer';
import { InboundEventsSweepRepository } from './inbound-events-sweep.repository';
import { InboundEventsService } from './inbound-events.service';

/** How often worker processes look for events a crash or a lost job left behind (default of INBOUND_SWEEP_TICK_MS). */
export const INBOUND_SWEEP_INTERVAL_MS = 30_000;
/** Delay of the start-up sweep (after the job backend is wired). */
export const INBOUND_STARTUP_SWEEP_DELAY_MS = 1_000;
const BATCH = 500;
const MAX_ROUNDS = 20;

export interface SweepResult {
  readonly released: number;
  readonly requeued: number;
  /** Due events left alone because their job is still queued (a backlog, not a lost job). */
  readonly stillQueued: number;
}

/**
 * The recovery sweep (DESIGN §4.3): an acknowledged event is never lost. At start-up every RECEIVED
 * event older than this service instance is re-queued (jobs held in process memory died with the old process;
 * newer ones were queued by the running processes); every 30 s,
 * those waiting longer than a minute (INBOUND_STALE_RECEIVED_MS). PROCESSING events older than 2
 * minutes (INBOUND_STALE_PROCESSING_MS) belong to a process that died and are released first. An event
 * whose job is still queued (a backlog) is left to that job. Timers run only in
 * the `all` and `worker` roles; several workers sweeping at once is harmless (SKIP LOCKED, and
 * processing claims each event once).
 */
@Injectable()
export class InboundRecoveryService implements OnApplicationBootstrap {
  private readonly logger = new Logger('InboundRecovery');
  private readonly timer = new SweepTimer(this.logger, 'Inbound recovery sweep failed', 'warn');
  private readonly startup = new StartupCutoff();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sweeps: InboundEventsSweepRepository,
    private readonly events: InboundEventsService,
    private readonly ticker: Ticker,
  ) {}

  @Timeout(INBOUND_STARTUP_SWEEP_DELAY_MS)
  async onStartup(): Promise<void> {
    await this.safely(() => this.sweep({ receivedOlderThanMs: this.startup.olderThanMs() }));
  }

  /** Every INBOUND_SWEEP_TICK_MS (default INBOUND_SWEEP_INTERVAL_MS), in the `all` and `worker` roles. */
  onApplicationBootstrap(): void {
    this.ticker.every('inbound.sweep', this.config.ticks.inboundSweepMs, () => this.onInterval());
  }

  async onInterval(): Promise<void> {
    await this.safely(() => this.sweep());
  }

  /** One sweep; exposed for tests and operators. */
  async sweep(options: { receivedOlderThanMs?: number; processingOlderThanMs?: number } = {}): Promise<SweepResult> {
    const released = await this.sweeps.releaseStuckProcessing(
      options.processingOlderThanMs ?? this.config.ticks.inboundStaleProcessingMs,
      this.events.maxAttempts,
    );
    let requeued = 0;
    let stillQueued = 0;
    await sweepInRounds(BATCH, MAX_ROUNDS, async () => {
      const due = await this.sweeps.takeDue(options.receivedOlderThanMs ?? this.config.ticks.inboundStaleReceivedMs, BATCH);
      // An event of a long backlog is due too, but its job is still waiting its turn: another job
      // would only run after it and find nothing to do (thousands of them, queued in front of new
      // messages, in a burst that takes minutes to drain; session 27).
      const queued = await this.events.stillQueued(due.map((e) => e.id));
      const lost = due.filter((e) => !queued.has(e.id));
      await Promise.all(lost.map((e) => this.events.enqueue(e.workspaceId, e.id, `${e.id}-sweep-${e.attempts}`)));
      requeued += lost.length;
      stillQueued += queued.size;
      return due.length;
    });
    if (released || requeued) this.logger.log({ released, requeued, stillQueued }, 'Recovered inbound events');
    return { released, requeued, stillQueued };
  }

  private async safely(run: () => Promise<SweepResult>): Promise<void> {
    if (this.config.role === 'cli') return;
    await this.timer.run(run);
  }
}
