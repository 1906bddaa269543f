import { Controller, Get, Header, HttpCode, Post, Req, type RawBodyRequest } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from 'src/core/auth/decorators/auth.decorators';
import { WebhookAckResponse } from '../dto/inbound-event.dto';
import { obj } from '../platforms/json.util';
import { InboundWebhooksService } from './inbound-webhooks.service';

/** `hub.mode` arrives as a dotted key (simple parser) or nested (extended parser). */
function hubParam(query: Request['query'], name: string): unknown {
  const flat = query[`hub.${name}`];
  if (flat !== undefined) return flat;
  return obj(query.hub)?.[name];
}

@ApiTags('channel webhooks')
@Controller('webhooks/meta')
export class MetaWebhookController {
  constructor(private readonly webhooks: InboundWebhooksService) {}

  @Post()
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'Messenger, Instagram and WhatsApp webhook (X-Hub-Signature-256)' })
  @ApiOkResponse({ type: WebhookAckResponse })
  receive(@Req() req: RawBodyRequest<Request>): Promise<WebhookAckResponse> {
    return this.webhooks.receiveMeta(req.rawBody, req.headers, req.body);
  }

  @Get()
  @Public()
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @ApiOperation({ summary: "Meta's subscription handshake: echoes hub.challenge when hub.verify_token matches" })
  verify(@Req() req: Request): Promise<string> {
    return this.webhooks.verifyMetaSubscription(
      hubParam(req.query, 'mode'),
      hubParam(req.query, 'verify_token'),
      hubParam(req.query, 'challenge'),
    );
  }
}
