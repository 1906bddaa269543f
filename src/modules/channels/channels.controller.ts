import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ApiPageResponse } from 'src/core/http/openapi.decorators';
import { ChannelsService } from './channels.service';
import { ChannelResponse } from './dto/channel.response';
import { ConnectChannelDto, ListChannelsQuery } from './dto/connect-channel.dto';

@ApiTags('channels')
@Controller('channels')
export class ChannelsController {
  constructor(private readonly channels: ChannelsService) {}

  @Get()
  @RequirePermission('channels.manage')
  @ApiPageResponse(ChannelResponse)
  @ApiOperation({ summary: 'List connected channels' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: ListChannelsQuery): Promise<Page<ChannelResponse>> {
    return this.channels.list(ctx, query);
  }

  @Post('connect')
  @RequirePermission('channels.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: ChannelResponse })
  @ApiOperation({ summary: 'Connect a channel (Messenger, Instagram, WhatsApp, Telegram, LINE, Custom)' })
  connect(@CurrentCtx() ctx: TenantContext, @Body() dto: ConnectChannelDto): Promise<ChannelResponse> {
    return this.channels.connect(ctx, dto);
  }

  @Get(':id')
  @RequirePermission('channels.manage')
  @ApiOkResponse({ type: ChannelResponse })
  @ApiOperation({ summary: 'Get a connected channel' })
  get(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<ChannelResponse> {
    return this.channels.get(ctx, id);
  }

  @Delete(':id')
  @RequirePermission('channels.manage')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Disconnected: secrets erased, conversations kept, later inbound refused' })
  @ApiOperation({ summary: 'Disconnect a channel' })
  disconnect(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.channels.disconnect(ctx, id);
  }
}
