import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { CursorPaginationQuery, type Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ApiPageResponse } from 'src/core/http/openapi.decorators';
import { ApiTokensService } from './api-tokens.service';
import { ApiTokenResponse, CreateApiTokenDto, CreatedApiTokenResponse } from './dto/api-token.dto';

@ApiTags('developer')
@Controller('developer/tokens')
export class ApiTokensController {
  constructor(private readonly tokens: ApiTokensService) {}

  @Post()
  @RequirePermission('developer.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: CreatedApiTokenResponse, description: 'The token is shown only here' })
  @ApiOperation({ summary: 'Create an API token (shown once)' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateApiTokenDto): Promise<CreatedApiTokenResponse> {
    return this.tokens.create(ctx, dto);
  }

  @Get()
  @RequirePermission('developer.manage')
  @ApiPageResponse(ApiTokenResponse)
  @ApiOperation({ summary: 'List API tokens' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: CursorPaginationQuery): Promise<Page<ApiTokenResponse>> {
    return this.tokens.list(ctx, query);
  }

  @Delete(':id')
  @RequirePermission('developer.manage')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Revoked: the token stops working at once' })
  @ApiOperation({ summary: 'Revoke an API token' })
  revoke(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.tokens.revoke(ctx, id);
  }
}
