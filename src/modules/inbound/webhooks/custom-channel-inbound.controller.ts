import { Controller, HttpCode, Param, Post, Req, type RawBodyRequest } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from 'src/core/auth/decorators/auth.decorators';
import { IdParam } from 'src/core/http/uuid-param.dto';
import { CustomInboundMessageDto } from 'src/modules/channels';
import { WebhookAckResponse } from '../events/dto/inbound-event.dto';
import { InboundWebhooksService } from './inbound-webhooks.service';

@ApiTags('channel webhooks')
@Controller('custom-channel')
export class CustomChannelInboundController {
  constructor(private readonly webhooks: InboundWebhooksService) {}

  @Post(':id/inbound')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Custom Channel inbound message (X-Service-Signature: sha256=<hex HMAC-SHA256 of the raw body>)',
  })
  @ApiHeader({
    name: 'X-Service-Signature',
    required: true,
    description: "`sha256=` + hex HMAC-SHA256 of the raw request body with the channel's inboundSecret",
    example: 'sha256=3f5a…',
  })
  @ApiUnauthorizedResponse({ description: 'Signature missing or wrong (`invalid_signature`)' })
  @ApiBody({ type: CustomInboundMessageDto })
  @ApiOkResponse({ type: WebhookAckResponse })
  receive(@Param() { id }: IdParam, @Req() req: RawBodyRequest<Request>): Promise<WebhookAckResponse> {
    return this.webhooks.receive('custom', {
      rawBody: req.rawBody,
      headers: req.headers,
      body: req.body,
      connectionId: id,
    });
  }
}
