import { Controller, Get, Header, HttpCode, Param, Post, Req, type RawBodyRequest } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from 'src/core/auth/decorators/auth.decorators';
import { WebhookAckResponse } from '../events/dto/inbound-event.dto';
import { InboundWebhooksService } from './inbound-webhooks.service';

/** The platform webhooks: one URL per adapter, `/webhooks/<adapter.webhook>`. */
@ApiTags('channel webhooks')
@Controller('webhooks')
export class PlatformWebhooksController {
  constructor(private readonly webhooks: InboundWebhooksService) {}

  @Post(':platform')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Platform webhook: meta (Messenger, Instagram, WhatsApp; X-Hub-Signature-256), telegram ' +
      '(X-Telegram-Bot-Api-Secret-Token or X-Messenger-Bot-Api-Secret-Token), line (X-Line-Signature or X-Chat-Content-Signature)',
  })
  @ApiParam({ name: 'platform', example: 'meta' })
  @ApiHeader({
    name: 'X-Hub-Signature-256',
    required: false,
    description: 'meta: `sha256=` + hex HMAC-SHA256 of the raw body with the app secret',
  })
  @ApiHeader({
    name: 'X-Telegram-Bot-Api-Secret-Token',
    required: false,
    description: "telegram: the connection's secret token",
  })
  @ApiHeader({
    name: 'X-Line-Signature',
    required: false,
    description: 'line: base64 HMAC-SHA256 of the raw body with the channel secret',
  })
  @ApiUnauthorizedResponse({ description: 'Signature or secret token missing or wrong (`invalid_signature`)' })
  @ApiOkResponse({ type: WebhookAckResponse })
  receive(@Param('platform') platform: string, @Req() req: RawBodyRequest<Request>): Promise<WebhookAckResponse> {
    return this.webhooks.receive(platform, { rawBody: req.rawBody, headers: req.headers, body: req.body });
  }

  @Get(':platform')
  @Public()
  @Header('Content-Type', 'text/plain; charset=utf-8')
  @ApiOperation({
    summary: "A platform's subscription handshake (meta: echoes hub.challenge when hub.verify_token matches)",
  })
  @ApiParam({ name: 'platform', example: 'meta' })
  verify(@Param('platform') platform: string, @Req() req: Request): Promise<string> {
    return this.webhooks.verifySubscription(platform, req.query);
  }
}
