import { Global, Module } from '@nestjs/common';
import { SecretBox } from './crypto/secret-box.service';
import { EventBus } from './events/event-bus';
import { OutboundUrlService } from './http/outbound-url.service';
import { RateLimiterService } from './http/rate-limiter.service';

/** Platform services every module may use. */
@Global()
@Module({
  providers: [RateLimiterService, SecretBox, OutboundUrlService, EventBus],
  exports: [RateLimiterService, SecretBox, OutboundUrlService, EventBus],
})
export class CoreModule {}
