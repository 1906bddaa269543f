import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { AnyMember, RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { CursorPaginationQuery, type Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
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
  getCapacity(@CurrentCtx() ctx: TenantContext): Promise<CapacityResponse> {
    return this.capacity.get(ctx);
  }

  @Put('capacity')
  @RequirePermission('queues.manage')
  @ApiOkResponse({ type: CapacityResponse })
  updateCapacity(@CurrentCtx() ctx: TenantContext, @Body() dto: UpdateCapacityDto): Promise<CapacityResponse> {
    return this.capacity.update(ctx, dto);
  }

  @Get()
  @AnyMember()
  @ApiOkResponse({ description: '{data: QueueResponse[], nextCursor}' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: CursorPaginationQuery): Promise<Page<QueueResponse>> {
    return this.queues.list(ctx, query);
  }

  @Post()
  @RequirePermission('queues.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: QueueResponse })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateQueueDto): Promise<QueueResponse> {
    return this.queues.create(ctx, dto);
  }

  @Put(':id')
  @RequirePermission('queues.manage')
  @ApiOkResponse({ type: QueueResponse })
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
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.queues.remove(ctx, id);
  }
}
