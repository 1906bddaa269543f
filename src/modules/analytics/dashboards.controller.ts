import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { CursorPaginationQuery, type Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { DashboardsService } from './dashboards.service';
import { CreateDashboardDto, DashboardListResponse, DashboardResponse, UpdateDashboardDto } from './dto/dashboard.dto';

@ApiTags('analytics')
@Controller('analytics/dashboards')
export class DashboardsController {
  constructor(private readonly dashboards: DashboardsService) {}

  @Get()
  @RequirePermission('analytics.view')
  @ApiOperation({ summary: 'Your dashboards and the shared ones, newest first' })
  @ApiOkResponse({ type: DashboardListResponse })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: CursorPaginationQuery): Promise<Page<DashboardResponse>> {
    return this.dashboards.list(ctx, query);
  }

  @Post()
  @RequirePermission('analytics.dashboards')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a dashboard (widgets checked against GET /analytics/meta)' })
  @ApiCreatedResponse({ type: DashboardResponse })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateDashboardDto): Promise<DashboardResponse> {
    return this.dashboards.create(ctx, dto);
  }

  @Get(':id')
  @RequirePermission('analytics.view')
  @ApiOperation({ summary: 'One dashboard (yours or shared)' })
  @ApiOkResponse({ type: DashboardResponse })
  @ApiNotFoundResponse()
  get(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<DashboardResponse> {
    return this.dashboards.get(ctx, id);
  }

  @Put(':id')
  @RequirePermission('analytics.dashboards')
  @ApiOperation({ summary: 'Change your dashboard (only the fields sent change)' })
  @ApiOkResponse({ type: DashboardResponse })
  @ApiNotFoundResponse()
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: UpdateDashboardDto,
  ): Promise<DashboardResponse> {
    return this.dashboards.update(ctx, id, dto);
  }

  @Delete(':id')
  @RequirePermission('analytics.dashboards')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete your dashboard' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse()
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.dashboards.remove(ctx, id);
  }
}
