import { Inject, Injectable, Logger } from '@nestjs/common';
import { Interval, Timeout } from '@nestjs/schedule';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';
import { WebhookDispatcher } from './webhook-dispatcher.service';
import { WebhookOutboxSweepRepository } from './webhook-outbox-sweep.repository';

/** How often workers look for unrelayed events and due attempts a crash or a lost job left behind. */
export const WEBHOOK_SWEEP_INTERVAL_MS = 5_000;
/** An unrelayed event / a due attempt is left to its own job for this long before the sweep takes it. */
export const WEBHOOK_SWEEP_GRACE_MS = 3_000;
/** Relayed outbox events (and their delivery log) are kept this many days. */
export const OUTBOX_RETENTION_DAYS = 30;
const PRUNE_INTERVAL_MS = 3_600_000;
const BATCH = 500;

/**
 * The webhook recovery sweep, like the inbound one: at start-up every unrelayed event and every
 * webhook with a due attempt is picked up (jobs held in process memory died with the old process),
 * then every 5 s those waiting longer than their own job should take. Attempts are claimed with a
 * lease under FOR UPDATE SKIP LOCKED, so a sweep racing a job (or another worker) sends once.
 * Hourly, relayed events older than 30 days are pruned with their delivery log. Timers run only in
 * the `all` and `worker` roles.
 */
@Injectable()
export class WebhookRecoveryService {
  private readonly logger = new Logger('WebhookRecovery');
  private running = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sweeps: WebhookOutboxSweepRepository,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  @Timeout(1_000)
  async onStartup(): Promise<void> {
    await this.safely(() => this.sweep(0));
  }

  @Interval(WEBHOOK_SWEEP_INTERVAL_MS)
  async onInterval(): Promise<void> {
    await this.safely(() => this.sweep(WEBHOOK_SWEEP_GRACE_MS));
  }

  @Interval(PRUNE_INTERVAL_MS)
  async onPrune(): Promise<void> {
    await this.safely(async () => {
      let pruned = 0;
      for (let round = 0; round < 100; round++) {
        const n = await this.sweeps.prune(OUTBOX_RETENTION_DAYS, 1_000);
        pruned += n;
        if (n < 1_000) break;
      }
      if (pruned) this.logger.log({ pruned }, 'Pruned relayed outbox events');
    });
  }

  /** One sweep (exposed for tests and operators): relays left behind, webhooks with attempts left behind. */
  async sweep(graceMs: number): Promise<{ workspaces: number; webhooks: number }> {
    const workspaces = await this.sweeps.workspacesWithUnrelayed(graceMs, BATCH);
    await Promise.all(workspaces.map((id) => this.dispatcher.kick(id, '-sweep')));
    const due = await this.sweeps.webhooksWithDue(graceMs, BATCH);
    await Promise.all(due.map((d) => this.dispatcher.enqueueDrain(d.workspaceId, d.webhookId)));
    if (workspaces.length || due.length) {
      this.logger.log({ workspaces: workspaces.length, webhooks: due.length }, 'Recovered webhook work');
    }
    return { workspaces: workspaces.length, webhooks: due.length };
  }

  private async safely(run: () => Promise<unknown>): Promise<void> {
    if (this.running || this.config.role === 'cli') return;
    this.running = true;
    try {
      await run();
    } catch (error) {
      this.logger.warn({ err: error }, 'Webhook recovery sweep failed');
    } finally {
      this.running = false;
    }
  }
}
