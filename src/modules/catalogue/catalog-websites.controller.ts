import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
  ApiOperation,
} from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { CursorPaginationQuery, type Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ApiPageResponse } from 'src/core/http/openapi.decorators';
import { CatalogWebsitesService } from './catalog-websites.service';
import {
  CreateWebsiteDto,
  ListWebsitesQuery,
  SyncStartedResponse,
  SyncWebsiteDto,
  UpdateWebsiteDto,
  WebsiteResponse,
  WebsiteRunResponse,
} from './dto/website.dto';

@ApiTags('catalogue websites')
@Controller('catalog/websites')
export class CatalogWebsitesController {
  constructor(private readonly websites: CatalogWebsitesService) {}

  @Get()
  @RequirePermission('catalog.manage')
  @ApiPageResponse(WebsiteResponse)
  @ApiOperation({ summary: 'List connected websites' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: ListWebsitesQuery): Promise<Page<WebsiteResponse>> {
    return this.websites.list(ctx, query);
  }

  @Post()
  @RequirePermission('catalog.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: WebsiteResponse })
  @ApiOperation({ summary: 'Connect a website to sync products from' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateWebsiteDto): Promise<WebsiteResponse> {
    return this.websites.create(ctx, dto);
  }

  @Get(':id')
  @RequirePermission('catalog.manage')
  @ApiOkResponse({ type: WebsiteResponse })
  @ApiOperation({ summary: 'Get a connected website' })
  get(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<WebsiteResponse> {
    return this.websites.get(ctx, id);
  }

  @Put(':id')
  @RequirePermission('catalog.manage')
  @ApiOkResponse({ type: WebsiteResponse })
  @ApiOperation({ summary: 'Change a connected website' })
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: UpdateWebsiteDto,
  ): Promise<WebsiteResponse> {
    return this.websites.update(ctx, id, dto);
  }

  @Delete(':id')
  @RequirePermission('catalog.manage')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Disconnected: its products are kept and stop updating' })
  @ApiOperation({ summary: 'Disconnect a website' })
  disconnect(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.websites.disconnect(ctx, id);
  }

  @Post(':id/sync')
  @RequirePermission('catalog.manage')
  @HttpCode(202)
  @ApiAcceptedResponse({ type: SyncStartedResponse })
  @ApiOperation({ summary: 'Start a website sync now' })
  sync(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: SyncWebsiteDto,
  ): Promise<SyncStartedResponse> {
    return this.websites.syncNow(ctx, id, dto);
  }

  @Get(':id/runs')
  @RequirePermission('catalog.manage')
  @ApiPageResponse(WebsiteRunResponse, 'Newest first')
  @ApiOperation({ summary: "List a website's sync runs" })
  runs(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Query() query: CursorPaginationQuery,
  ): Promise<Page<WebsiteRunResponse>> {
    return this.websites.listRuns(ctx, id, query);
  }
}
