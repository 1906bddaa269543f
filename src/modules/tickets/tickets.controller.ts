import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
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
import {
  CreateTicketCommentDto,
  CreateTicketDto,
  ListTicketsQuery,
  TicketBoardResponse,
  TicketCommentResponse,
  TicketDetailResponse,
  TicketFiltersQuery,
  TicketPageResponse,
  TicketResponse,
  TicketStatsResponse,
  UpdateTicketDto,
} from './dto/ticket.dto';
import { TicketBoardService } from './ticket-board.service';
import { TicketsService } from './tickets.service';

/** `/tickets/board` and `/tickets/stats` are declared before `/tickets/:id` so they are never taken for an id. */
@ApiTags('tickets')
@Controller('tickets')
export class TicketsController {
  constructor(
    private readonly tickets: TicketsService,
    private readonly board: TicketBoardService,
  ) {}

  @Get('board')
  @RequirePermission('tickets.view')
  @ApiOkResponse({ type: TicketBoardResponse, description: 'Same filters as the list' })
  @ApiOperation({ summary: 'Get the ticket board (columns by status)' })
  getBoard(@CurrentCtx() ctx: TenantContext, @Query() query: TicketFiltersQuery): Promise<TicketBoardResponse> {
    return this.board.board(ctx, query);
  }

  @Get('stats')
  @RequirePermission('tickets.view')
  @ApiOkResponse({ type: TicketStatsResponse, description: 'Same filters as the list' })
  @ApiOperation({ summary: 'Get ticket statistics' })
  getStats(@CurrentCtx() ctx: TenantContext, @Query() query: TicketFiltersQuery): Promise<TicketStatsResponse> {
    return this.board.stats(ctx, query);
  }

  @Get()
  @RequirePermission('tickets.view')
  @ApiOkResponse({ type: TicketPageResponse, description: 'Newest first' })
  @ApiOperation({ summary: 'List tickets' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: ListTicketsQuery): Promise<Page<TicketResponse>> {
    return this.tickets.list(ctx, query);
  }

  @Post()
  @RequirePermission('tickets.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: TicketResponse, description: 'Source MANUAL for a user, API for an API token' })
  @ApiNotFoundResponse({ description: 'A referenced assignee, queue, contact or conversation does not exist' })
  @ApiOperation({ summary: 'Create a ticket' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateTicketDto): Promise<TicketResponse> {
    return this.tickets.create(ctx, dto);
  }

  @Get(':id')
  @RequirePermission('tickets.view')
  @ApiOkResponse({ type: TicketDetailResponse })
  @ApiNotFoundResponse()
  @ApiOperation({ summary: 'Get a ticket' })
  get(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<TicketDetailResponse> {
    return this.tickets.get(ctx, id);
  }

  @Put(':id')
  @RequirePermission('tickets.manage')
  @ApiOkResponse({ type: TicketResponse, description: 'Only the fields sent change; null clears a field' })
  @ApiNotFoundResponse()
  @ApiConflictResponse({ description: 'invalid_transition: a CLOSED ticket can only be reopened' })
  @ApiOperation({ summary: 'Change a ticket' })
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: UpdateTicketDto,
  ): Promise<TicketResponse> {
    return this.tickets.update(ctx, id, dto);
  }

  @Delete(':id')
  @RequirePermission('tickets.manage')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted with its comments' })
  @ApiNotFoundResponse()
  @ApiOperation({ summary: 'Delete a ticket' })
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.tickets.remove(ctx, id);
  }

  @Post(':id/comments')
  @RequirePermission('tickets.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: TicketCommentResponse })
  @ApiNotFoundResponse()
  @ApiConflictResponse({ description: 'invalid_transition: the ticket is CLOSED' })
  @ApiOperation({ summary: 'Add a comment to a ticket' })
  addComment(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: CreateTicketCommentDto,
  ): Promise<TicketCommentResponse> {
    return this.tickets.addComment(ctx, id, dto);
  }
}
