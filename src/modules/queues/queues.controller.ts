import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { AnyMember, RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { CursorPaginationQuery, type Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ApiPageResponse } from 'src/core/http/openapi.decorators';
import { CapacityService } from './capacity.service';
import { CapacityResponse, CreateQueueDto, QueueResponse, UpdateCapacityDto, UpdateQueueDto } from './dto/queue.dto';
import { QueuesService } from './queues.service';

/** `/queues/capacity` is declared before `/queues/:id` so it is never taken for an id. */
@ApiTags('queues')
@Controller('queues')
export class QueuesController {
  constructor(
    private readonly queues: QueuesService,
    private readonly capacity: CapacityService,
  ) {}

  @Get('capacity')
  @RequirePermission('queues.manage')
  @ApiOkResponse({ type: CapacityResponse })
  @ApiOperation({ summary: "Get every member's capacity and availability" })
  getCapacity(@CurrentCtx() ctx: TenantContext): Promise<CapacityResponse> {
    return this.capacity.get(ctx);
  }

  @Put('capacity')
  @RequirePermission('queues.manage')
  @ApiOkResponse({ type: CapacityResponse })
  @ApiOperation({ summary: "Change members' maximum open conversations" })
  updateCapacity(@CurrentCtx() ctx: TenantContext, @Body() dto: UpdateCapacityDto): Promise<CapacityResponse> {
    return this.capacity.update(ctx, dto);
  }

  @Get()
  @AnyMember()
  @ApiPageResponse(QueueResponse)
  @ApiOperation({ summary: 'List queues' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: CursorPaginationQuery): Promise<Page<QueueResponse>> {
    return this.queues.list(ctx, query);
  }

  @Post()
  @RequirePermission('queues.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: QueueResponse })
  @ApiOperation({ summary: 'Create a queue' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateQueueDto): Promise<QueueResponse> {
    return this.queues.create(ctx, dto);
  }

  @Put(':id')
  @RequirePermission('queues.manage')
  @ApiOkResponse({ type: QueueResponse })
  @ApiOperation({ summary: 'Change a queue (name, strategy, members, default)' })
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: UpdateQueueDto,
  ): Promise<QueueResponse> {
    return this.queues.update(ctx, id, dto);
  }

  @Delete(':id')
  @RequirePermission('queues.manage')
  @HttpCode(204)
  @ApiNoContentResponse({
    description: 'Deleted; its conversations move to the default queue. The default queue → 409',
  })
  @ApiOperation({ summary: 'Delete a queue' })
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.queues.remove(ctx, id);
  }
}
