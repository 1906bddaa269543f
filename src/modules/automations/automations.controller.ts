import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { AutomationsService } from './automations.service';
import {
  AutomationPageResponse,
  AutomationResponse,
  AutomationRunPageResponse,
  AutomationRunResponse,
  AutomationTestResponse,
  AutomationsMetaResponse,
  CreateAutomationDto,
  ListAutomationsQuery,
  ListRunsQuery,
  TestAutomationDto,
  UpdateAutomationDto,
} from './dto/automation.dto';

/** `/automations/meta` and `/automations/runs` are declared before `/automations/:id`. */
@ApiTags('automations')
@Controller('automations')
export class AutomationsController {
  constructor(private readonly automations: AutomationsService) {}

  @Get('meta')
  @RequirePermission('automations.manage')
  @ApiOperation({ summary: 'Every trigger, field (type, operators), action and flow step with its parameters' })
  @ApiOkResponse({ type: AutomationsMetaResponse })
  meta(): AutomationsMetaResponse {
    return this.automations.meta() as unknown as AutomationsMetaResponse;
  }

  @Get('runs')
  @RequirePermission('automations.manage')
  @ApiOperation({ summary: 'The run log, newest first (filters automationId, from, to, status)' })
  @ApiOkResponse({ type: AutomationRunPageResponse })
  runs(@CurrentCtx() ctx: TenantContext, @Query() query: ListRunsQuery): Promise<Page<AutomationRunResponse>> {
    return this.automations.listRuns(ctx, query);
  }

  @Get()
  @RequirePermission('automations.manage')
  @ApiOperation({ summary: 'List automations, newest first (filters kind, active)' })
  @ApiOkResponse({ type: AutomationPageResponse })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: ListAutomationsQuery): Promise<Page<AutomationResponse>> {
    return this.automations.list(ctx, query);
  }

  @Post()
  @RequirePermission('automations.manage')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a RULE or a FLOW' })
  @ApiCreatedResponse({ type: AutomationResponse })
  @ApiBadRequestResponse({ description: 'validation_failed; details name the path, e.g. actions[2].params.queueId' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateAutomationDto): Promise<AutomationResponse> {
    return this.automations.create(ctx, dto);
  }

  @Get(':id')
  @RequirePermission('automations.manage')
  @ApiOperation({ summary: 'One automation' })
  @ApiOkResponse({ type: AutomationResponse })
  @ApiNotFoundResponse()
  get(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<AutomationResponse> {
    return this.automations.get(ctx, id);
  }

  @Put(':id')
  @RequirePermission('automations.manage')
  @ApiOperation({ summary: 'Replace an automation' })
  @ApiOkResponse({ type: AutomationResponse })
  @ApiNotFoundResponse()
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: UpdateAutomationDto,
  ): Promise<AutomationResponse> {
    return this.automations.update(ctx, id, dto);
  }

  @Delete(':id')
  @RequirePermission('automations.manage')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an automation (and its runs)' })
  @ApiNoContentResponse()
  @ApiNotFoundResponse()
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.automations.remove(ctx, id);
  }

  @Post(':id/test')
  @RequirePermission('automations.manage')
  @HttpCode(200)
  @ApiOperation({ summary: 'Dry run on a sample: conditions with their values, planned actions; no side effect' })
  @ApiOkResponse({ type: AutomationTestResponse })
  @ApiNotFoundResponse()
  test(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: TestAutomationDto,
  ): Promise<AutomationTestResponse> {
    return this.automations.test(ctx, id, dto.sample);
  }
}
