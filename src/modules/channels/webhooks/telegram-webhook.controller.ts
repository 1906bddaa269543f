import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from 'src/core/auth/decorators/auth.decorators';
import { WebhookAckResponse } from '../dto/inbound-event.dto';
import { InboundWebhooksService } from './inbound-webhooks.service';

@ApiTags('channel webhooks')
@Controller('webhooks/telegram')
export class TelegramWebhookController {
  constructor(private readonly webhooks: InboundWebhooksService) {}

  @Post()
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Telegram Bot API webhook (X-Telegram-Bot-Api-Secret-Token or X-Messenger-Bot-Api-Secret-Token)',
  })
  @ApiOkResponse({ type: WebhookAckResponse })
  receive(@Req() req: Request): Promise<WebhookAckResponse> {
    return this.webhooks.receiveTelegram(req.headers, req.body);
  }
}
