import { Controller, HttpCode, Post, Req, type RawBodyRequest } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from 'src/core/auth/decorators/auth.decorators';
import { WebhookAckResponse } from '../dto/inbound-event.dto';
import { InboundWebhooksService } from './inbound-webhooks.service';

@ApiTags('channel webhooks')
@Controller('webhooks/line')
export class LineWebhookController {
  constructor(private readonly webhooks: InboundWebhooksService) {}

  @Post()
  @Public()
  @HttpCode(200)
  @ApiOperation({ summary: 'LINE Messaging API webhook (X-Line-Signature or X-Chat-Content-Signature)' })
  @ApiOkResponse({ type: WebhookAckResponse })
  receive(@Req() req: RawBodyRequest<Request>): Promise<WebhookAckResponse> {
    return this.webhooks.receiveLine(req.rawBody, req.headers, req.body);
  }
}
