import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ApiPageResponse } from 'src/core/http/openapi.decorators';
import { InboundEventResponse, ListInboundEventsQuery } from './dto/inbound-event.dto';
import { InboundEventsService } from './inbound-events.service';

class ChannelEventParams {
  @ApiProperty({ format: 'uuid' }) @IsString() readonly id: string;
  @ApiProperty({ format: 'uuid' }) @IsString() readonly eventId: string;
}

/** A channel's inbound event log (DESIGN §4.3): what arrived, how it was processed, and a manual retry. */
@ApiTags('channels')
@Controller('channels')
export class InboundEventsController {
  constructor(private readonly events: InboundEventsService) {}

  @Get(':id/events')
  @RequirePermission('channels.manage')
  @ApiOperation({ summary: "A channel's inbound events, newest first" })
  @ApiPageResponse(InboundEventResponse, 'Newest first')
  list(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Query() query: ListInboundEventsQuery,
  ): Promise<Page<InboundEventResponse>> {
    return this.events.list(ctx, id, query.status, query);
  }

  @Post(':id/events/:eventId/retry')
  @RequirePermission('channels.manage')
  @HttpCode(200)
  @ApiOperation({ summary: 'Runs a FAILED (or stuck RECEIVED) event again with a fresh attempt budget' })
  @ApiOkResponse({ type: InboundEventResponse, description: 'The event, RECEIVED again and queued' })
  retry(@CurrentCtx() ctx: TenantContext, @Param() { id, eventId }: ChannelEventParams): Promise<InboundEventResponse> {
    return this.events.retry(ctx, id, eventId);
  }
}
