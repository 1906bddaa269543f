import { Global, Module } from '@nestjs/common';
import { SecretBox } from './crypto/secret-box.service';
import { TableMaintenanceService } from './database/table-maintenance.service';
import { CacheInvalidation } from './events/cache-invalidation';
import { EventBus } from './events/event-bus';
import { FastRoutes } from './http/fast-routes';
import { OutboundHttp } from './http/outbound-http';
import { Ticker } from './queue/ticker.service';
import { OutboundUrlService } from './http/outbound-url.service';
import { RateLimiterService } from './http/rate-limiter.service';

/** Platform services every module may use. */
@Global()
@Module({
  providers: [
    RateLimiterService,
    SecretBox,
    OutboundUrlService,
    OutboundHttp,
    EventBus,
    Ticker,
    FastRoutes,
    CacheInvalidation,
    TableMaintenanceService,
  ],
  exports: [RateLimiterService, SecretBox, OutboundUrlService, OutboundHttp, EventBus, Ticker, FastRoutes, CacheInvalidation],
})
export class CoreModule {}
