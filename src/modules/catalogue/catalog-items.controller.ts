import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ApiPageResponse } from 'src/core/http/openapi.decorators';
import { CatalogItemsService } from './catalog-items.service';
import {
  CatalogItemResponse,
  CreateCatalogItemDto,
  ListCatalogItemsQuery,
  UpdateCatalogItemDto,
} from './dto/catalog-item.dto';

/** Registered after the feed, import and website controllers: `/catalog/:id` must not shadow `/catalog/websites`. */
@ApiTags('catalogue')
@Controller('catalog')
export class CatalogItemsController {
  constructor(private readonly items: CatalogItemsService) {}

  @Get()
  @RequirePermission('catalog.view')
  @ApiPageResponse(CatalogItemResponse, 'Status defaults to ON_SALE')
  @ApiOperation({ summary: 'List catalogue items' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: ListCatalogItemsQuery): Promise<Page<CatalogItemResponse>> {
    return this.items.list(ctx, query);
  }

  @Post()
  @RequirePermission('catalog.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: CatalogItemResponse })
  @ApiOperation({ summary: 'Create a catalogue item' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateCatalogItemDto): Promise<CatalogItemResponse> {
    return this.items.create(ctx, dto);
  }

  @Get(':id')
  @RequirePermission('catalog.view')
  @ApiOkResponse({ type: CatalogItemResponse })
  @ApiOperation({ summary: 'Get a catalogue item' })
  get(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<CatalogItemResponse> {
    return this.items.get(ctx, id);
  }

  @Put(':id')
  @RequirePermission('catalog.manage')
  @ApiOkResponse({ type: CatalogItemResponse, description: 'Only the fields sent change; null clears' })
  @ApiOperation({ summary: 'Change a catalogue item' })
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: UpdateCatalogItemDto,
  ): Promise<CatalogItemResponse> {
    return this.items.update(ctx, id, dto);
  }

  @Delete(':id')
  @RequirePermission('catalog.manage')
  @HttpCode(200)
  @ApiOkResponse({
    type: CatalogItemResponse,
    description: 'Taken off sale (hidden, never deleted: past orders still name it)',
  })
  @ApiOperation({ summary: 'Delete a catalogue item' })
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<CatalogItemResponse> {
    return this.items.takeOffSale(ctx, id);
  }
}
