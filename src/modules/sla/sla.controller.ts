import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiTags,
  ApiOperation,
} from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { CreateSlaPolicyDto, SlaPolicyListResponse, SlaPolicyResponse, UpdateSlaPolicyDto } from './dto/sla-policy.dto';
import { SlaSummaryQuery, SlaSummaryResponse } from './dto/sla-summary.dto';
import { SlaPoliciesService } from './sla-policies.service';
import { SlaService } from './sla.service';

@ApiTags('sla')
@Controller('sla')
export class SlaController {
  constructor(
    private readonly policies: SlaPoliciesService,
    private readonly sla: SlaService,
  ) {}

  @Get('summary')
  @RequirePermission('analytics.view')
  @ApiOkResponse({ type: SlaSummaryResponse, description: 'Conversations created in [from, to) with a policy' })
  @ApiOperation({ summary: 'Get the SLA summary (met and breached)' })
  summary(@CurrentCtx() ctx: TenantContext, @Query() query: SlaSummaryQuery): Promise<SlaSummaryResponse> {
    return this.sla.summary(ctx, query);
  }

  @Get('policies')
  @RequirePermission('sla.manage')
  @ApiOkResponse({ type: SlaPolicyListResponse })
  @ApiOperation({ summary: 'List SLA policies' })
  list(@CurrentCtx() ctx: TenantContext): Promise<Page<SlaPolicyResponse>> {
    return this.policies.list(ctx);
  }

  @Post('policies')
  @RequirePermission('sla.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: SlaPolicyResponse })
  @ApiOperation({ summary: 'Create an SLA policy' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateSlaPolicyDto): Promise<SlaPolicyResponse> {
    return this.policies.create(ctx, dto);
  }

  @Put('policies/:id')
  @RequirePermission('sla.manage')
  @ApiOkResponse({ type: SlaPolicyResponse, description: 'Only the fields sent change' })
  @ApiNotFoundResponse()
  @ApiOperation({ summary: 'Change an SLA policy' })
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: UpdateSlaPolicyDto,
  ): Promise<SlaPolicyResponse> {
    return this.policies.update(ctx, id, dto);
  }

  @Delete('policies/:id')
  @RequirePermission('sla.manage')
  @HttpCode(204)
  @ApiNoContentResponse()
  @ApiNotFoundResponse()
  @ApiOperation({ summary: 'Delete an SLA policy' })
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.policies.remove(ctx, id);
  }
}
