import { Body, Controller, Delete, HttpCode, Param, Put } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiPayloadTooLargeResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { RequirePermission, RequireScopes } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { CatalogFeedService } from './catalog-feed.service';
import {
  FeedDeleteResponse,
  FeedIdParam,
  FeedUpsertDto,
  type FeedUpsertInput,
  FeedUpsertResponse,
} from './dto/feed.dto';
import { FeedItemsPipe } from './dto/feed-items.pipe';

/** SPEC §4 feed: API tokens with scope `catalog:write` only (user JWTs and scopeless tokens → 403 insufficient_scope). */
@ApiTags('catalogue feed')
@Controller('catalog/feed/items')
export class CatalogFeedController {
  constructor(private readonly feed: CatalogFeedService) {}

  @Put()
  @RequireScopes('catalog:write')
  @RequirePermission('catalog.manage')
  @HttpCode(200)
  @ApiBody({ type: FeedUpsertDto })
  @ApiOkResponse({ type: FeedUpsertResponse })
  @ApiPayloadTooLargeResponse({ description: 'More than 500 items' })
  @ApiOperation({ summary: 'Create or update catalogue items by external id (API feed)' })
  upsert(@CurrentCtx() ctx: TenantContext, @Body(FeedItemsPipe) dto: FeedUpsertInput): Promise<FeedUpsertResponse> {
    return this.feed.upsert(ctx, dto);
  }

  @Delete(':id')
  @RequireScopes('catalog:write')
  @RequirePermission('catalog.manage')
  @HttpCode(200)
  @ApiOkResponse({ type: FeedDeleteResponse, description: 'Taken off sale (hidden, not deleted)' })
  @ApiOperation({ summary: 'Take a feed item off sale by external id' })
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: FeedIdParam): Promise<FeedDeleteResponse> {
    return this.feed.takeOffSale(ctx, id);
  }
}
