import { Global, Module } from '@nestjs/common';
import { SecretBox } from './crypto/secret-box.service';
import { EventBus } from './events/event-bus';
import { OutboundHttp } from './http/outbound-http';
import { OutboundUrlService } from './http/outbound-url.service';
import { RateLimiterService } from './http/rate-limiter.service';

/** Platform services every module may use. */
@Global()
@Module({
  providers: [RateLimiterService, SecretBox, OutboundUrlService, OutboundHttp, EventBus],
  exports: [RateLimiterService, SecretBox, OutboundUrlService, OutboundHttp, EventBus],
})
export class CoreModule {}
