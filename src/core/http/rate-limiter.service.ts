import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { APP_CONFIG } from 'src/core/config/config.constants';
import type { AppConfig } from 'src/core/config/app-config';
import { AppException } from 'src/core/errors/app.exception';
import { ErrorCode } from 'src/core/errors/error-codes';

export interface RateLimitRule {
  readonly points: number;
  readonly durationSeconds: number;
}

/**
 * Fixed-window limits from rate-limiter-flexible: in memory, or shared in Redis when REDIS_URL is set
 * (several api processes count together), falling back to memory while Redis is unreachable.
 */
@Injectable()
export class RateLimiterService implements OnApplicationShutdown {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly redis: Redis | null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    this.redis = config.redis.url
      ? new Redis(config.redis.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false })
      : null;
    this.redis?.on('error', () => undefined);
  }

  /** Counts one attempt against `key`; over the limit → 429 `rate_limited` with Retry-After. */
  async consume(name: string, rule: RateLimitRule, key: string): Promise<void> {
    try {
      await this.limiter(name, rule).consume(key);
    } catch (result) {
      if (!(result instanceof RateLimiterRes)) throw result;
      const retryAfter = Math.max(1, Math.ceil(result.msBeforeNext / 1000));
      throw new AppException(ErrorCode.RateLimited, `Too many attempts; retry in ${retryAfter} s`, [], {
        'Retry-After': String(retryAfter),
      });
    }
  }

  async reset(name: string, rule: RateLimitRule, key: string): Promise<void> {
    await this.limiter(name, rule)
      .delete(key)
      .catch(() => undefined);
  }

  private limiter(name: string, rule: RateLimitRule): RateLimiterAbstract {
    const id = `${name}:${rule.points}:${rule.durationSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const memory = new RateLimiterMemory({ keyPrefix: name, points: rule.points, duration: rule.durationSeconds });
      limiter = this.redis
        ? new RateLimiterRedis({
            storeClient: this.redis,
            keyPrefix: `${this.config.redis.prefix}:rl:${name}`,
            points: rule.points,
            duration: rule.durationSeconds,
            insuranceLimiter: memory,
            rejectIfRedisNotReady: true,
          })
        : memory;
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  onApplicationShutdown(): void {
    this.redis?.disconnect();
  }
}
