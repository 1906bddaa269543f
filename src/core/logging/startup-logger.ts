import type { LoggerService } from '@nestjs/common';

/** Nest's own start-up chatter: one line per module and per route. Useful when debugging wiring only. */
const DEBUG_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

/**
 * Wraps the application logger so Nest's per-module and per-route start-up lines are logged at
 * debug instead of info (a first start printed ~120 such lines before anything useful).
 */
export class StartupAwareLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...optional: unknown[]): void {
    const context = optional[optional.length - 1];
    if (typeof context === 'string' && DEBUG_CONTEXTS.has(context)) {
      this.inner.debug?.(message, ...optional);
      return;
    }
    this.inner.log(message, ...optional);
  }

  error(message: unknown, ...optional: unknown[]): void {
    this.inner.error(message, ...optional);
  }

  warn(message: unknown, ...optional: unknown[]): void {
    this.inner.warn(message, ...optional);
  }

  debug(message: unknown, ...optional: unknown[]): void {
    this.inner.debug?.(message, ...optional);
  }

  verbose(message: unknown, ...optional: unknown[]): void {
    this.inner.verbose?.(message, ...optional);
  }

  fatal(message: unknown, ...optional: unknown[]): void {
    (this.inner.fatal ?? this.inner.error).call(this.inner, message, ...optional);
  }
}
