import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ChannelsService } from './channels.service';
import { ChannelResponse } from './dto/channel.response';
import { ConnectChannelDto, ListChannelsQuery } from './dto/connect-channel.dto';
import { InboundEventResponse, ListInboundEventsQuery } from './dto/inbound-event.dto';
import { InboundEventsService } from './events/inbound-events.service';

class ChannelEventParams {
  @ApiProperty({ format: 'uuid' }) @IsString() readonly id: string;
  @ApiProperty({ format: 'uuid' }) @IsString() readonly eventId: string;
}

@ApiTags('channels')
@Controller('channels')
export class ChannelsController {
  constructor(
    private readonly channels: ChannelsService,
    private readonly events: InboundEventsService,
  ) {}

  @Get()
  @RequirePermission('channels.manage')
  @ApiOkResponse({ description: '{data: ChannelResponse[], nextCursor}' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: ListChannelsQuery): Promise<Page<ChannelResponse>> {
    return this.channels.list(ctx, query);
  }

  @Post('connect')
  @RequirePermission('channels.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: ChannelResponse })
  connect(@CurrentCtx() ctx: TenantContext, @Body() dto: ConnectChannelDto): Promise<ChannelResponse> {
    return this.channels.connect(ctx, dto);
  }

  @Get(':id')
  @RequirePermission('channels.manage')
  @ApiOkResponse({ type: ChannelResponse })
  get(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<ChannelResponse> {
    return this.channels.get(ctx, id);
  }

  @Delete(':id')
  @RequirePermission('channels.manage')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Disconnected: secrets erased, conversations kept, later inbound refused' })
  disconnect(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.channels.disconnect(ctx, id);
  }

  @Get(':id/events')
  @RequirePermission('channels.manage')
  @ApiOkResponse({ description: '{data: InboundEventResponse[], nextCursor}, newest first' })
  listEvents(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Query() query: ListInboundEventsQuery,
  ): Promise<Page<InboundEventResponse>> {
    return this.events.list(ctx, id, query.status, query);
  }

  @Post(':id/events/:eventId/retry')
  @RequirePermission('channels.manage')
  @HttpCode(200)
  @ApiOkResponse({ type: InboundEventResponse, description: 'The event, RECEIVED again and queued' })
  retry(@CurrentCtx() ctx: TenantContext, @Param() { id, eventId }: ChannelEventParams): Promise<InboundEventResponse> {
    return this.events.retry(ctx, id, eventId);
  }
}
