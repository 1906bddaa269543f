import { Controller, Get, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { AnalyticsService } from './analytics.service';
import { AnalyticsMetaResponse } from './dto/analytics-meta.dto';
import {
  AnalyticsAiResponse,
  AnalyticsInboxResponse,
  AnalyticsQuery,
  AnalyticsSummaryResponse,
  AnalyticsTicketsResponse,
  AnalyticsWorkforceResponse,
} from './dto/analytics-query.dto';

@ApiTags('analytics')
@Controller('analytics')
export class AnalyticsController {
  constructor(private readonly analytics: AnalyticsService) {}

  @Get('meta')
  @RequirePermission('analytics.view')
  @ApiOperation({ summary: 'Sources and metrics dashboard widgets may use' })
  @ApiOkResponse({ type: AnalyticsMetaResponse })
  meta(): AnalyticsMetaResponse {
    return this.analytics.meta();
  }

  @Get('summary')
  @RequirePermission('analytics.view')
  @ApiOperation({ summary: 'Totals of the window [from, to)' })
  @ApiOkResponse({ type: AnalyticsSummaryResponse })
  @ApiBadRequestResponse({ description: 'from ≥ to, not ISO 8601, or more than 2,000 buckets' })
  summary(@CurrentCtx() ctx: TenantContext, @Query() query: AnalyticsQuery): Promise<AnalyticsSummaryResponse> {
    return this.analytics.summary(ctx, query);
  }

  @Get('inbox')
  @RequirePermission('analytics.view')
  @ApiOperation({ summary: 'Conversations and messages per bucket (workspace timezone) and per channel type' })
  @ApiOkResponse({ type: AnalyticsInboxResponse })
  inbox(@CurrentCtx() ctx: TenantContext, @Query() query: AnalyticsQuery): Promise<AnalyticsInboxResponse> {
    return this.analytics.inbox(ctx, query);
  }

  @Get('tickets')
  @RequirePermission('analytics.view')
  @ApiOperation({ summary: 'Tickets created and resolved per bucket; by status and priority' })
  @ApiOkResponse({ type: AnalyticsTicketsResponse })
  tickets(@CurrentCtx() ctx: TenantContext, @Query() query: AnalyticsQuery): Promise<AnalyticsTicketsResponse> {
    return this.analytics.tickets(ctx, query);
  }

  @Get('workforce')
  @RequirePermission('analytics.view')
  @ApiOperation({ summary: 'Per agent: presence, online seconds, assigned, resolved, first response, open now' })
  @ApiOkResponse({ type: AnalyticsWorkforceResponse })
  workforce(@CurrentCtx() ctx: TenantContext, @Query() query: AnalyticsQuery): Promise<AnalyticsWorkforceResponse> {
    return this.analytics.workforce(ctx, query);
  }

  @Get('ai')
  @RequirePermission('analytics.view')
  @ApiOperation({ summary: 'AI replies, handoffs and automated resolutions' })
  @ApiOkResponse({ type: AnalyticsAiResponse })
  ai(@CurrentCtx() ctx: TenantContext, @Query() query: AnalyticsQuery): Promise<AnalyticsAiResponse> {
    return this.analytics.ai(ctx, query);
  }
}
