import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from 'src/core/config/app-config';
import { APP_CONFIG } from 'src/core/config/config.constants';

/**
 * Periodic timers whose period comes from configuration (`*_TICK_MS`, issue 9). Like `@Interval`,
 * they run only in the `all` and `worker` roles: in `api` (and `cli`) `every` does nothing. A tick
 * never overlaps itself.
 */
@Injectable()
export class Ticker implements OnApplicationShutdown {
  private readonly logger = new Logger('Ticker');
  private readonly handles: NodeJS.Timeout[] = [];

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get runsTimers(): boolean {
    return this.config.role === 'all' || this.config.role === 'worker';
  }

  every(name: string, periodMs: number, tick: () => Promise<void>): void {
    if (!this.runsTimers) return;
    let running = false;
    const handle = setInterval(() => {
      if (running) return;
      running = true;
      tick()
        .catch((error: unknown) => this.logger.error({ err: error, timer: name }, 'Timer tick failed'))
        .finally(() => (running = false));
    }, periodMs);
    handle.unref();
    this.handles.push(handle);
  }

  onApplicationShutdown(): void {
    for (const handle of this.handles.splice(0)) clearInterval(handle);
  }
}
