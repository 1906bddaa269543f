import { Global, Module } from '@nestjs/common';
import { RateLimiterService } from './http/rate-limiter.service';

/** Platform services every module may use. */
@Global()
@Module({ providers: [RateLimiterService], exports: [RateLimiterService] })
export class CoreModule {}
