import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { AnyMember, RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { ApiPageResponse } from 'src/core/http/openapi.decorators';
import { CursorPaginationQuery, type Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import {
  CreateWebhookDto,
  DeliveryParams,
  ListDeliveriesQuery,
  UpdateWebhookDto,
  WebhookDeliveryResponse,
  WebhookResponse,
  WebhookTestResponse,
  WebhookWithSecretResponse,
} from './dto/webhook.dto';
import { WebhooksService } from './webhooks/webhooks.service';

@ApiTags('developer')
@Controller('developer')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Get('meta')
  @AnyMember()
  @ApiOperation({ summary: 'Event names, token scopes and how deliveries are signed' })
  meta(): Record<string, unknown> {
    return this.webhooks.meta();
  }

  @Get('webhooks')
  @RequirePermission('developer.manage')
  @ApiOperation({ summary: 'List webhooks (keyset paged, newest first)' })
  @ApiPageResponse(WebhookResponse, 'Newest first')
  list(@CurrentCtx() ctx: TenantContext, @Query() query: CursorPaginationQuery): Promise<Page<WebhookResponse>> {
    return this.webhooks.list(ctx, query);
  }

  @Post('webhooks')
  @RequirePermission('developer.manage')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a webhook; the signing secret is returned only here' })
  @ApiCreatedResponse({ type: WebhookWithSecretResponse })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateWebhookDto): Promise<WebhookWithSecretResponse> {
    return this.webhooks.create(ctx, dto);
  }

  @Get('webhooks/:id')
  @RequirePermission('developer.manage')
  @ApiOperation({ summary: 'One webhook' })
  @ApiOkResponse({ type: WebhookResponse })
  get(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<WebhookResponse> {
    return this.webhooks.get(ctx, id);
  }

  @Put('webhooks/:id')
  @RequirePermission('developer.manage')
  @ApiOperation({ summary: 'Change a webhook; `active: true` re-enables it and resets its failure count' })
  @ApiOkResponse({ type: WebhookResponse })
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: UpdateWebhookDto,
  ): Promise<WebhookResponse> {
    return this.webhooks.update(ctx, id, dto);
  }

  @Delete('webhooks/:id')
  @RequirePermission('developer.manage')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook with its delivery log' })
  @ApiNoContentResponse()
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.webhooks.remove(ctx, id);
  }

  @Get('webhooks/:id/deliveries')
  @RequirePermission('developer.manage')
  @ApiOperation({ summary: 'Delivery attempts of a webhook (keyset paged; filters status, eventType)' })
  @ApiPageResponse(WebhookDeliveryResponse, 'Newest first')
  deliveries(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Query() query: ListDeliveriesQuery,
  ): Promise<Page<WebhookDeliveryResponse>> {
    return this.webhooks.listDeliveries(ctx, id, query);
  }

  @Post('webhooks/:id/deliveries/:deliveryId/redeliver')
  @RequirePermission('developer.manage')
  @HttpCode(202)
  @ApiOperation({ summary: 'Send the same event (same id) again' })
  @ApiAcceptedResponse({ type: WebhookDeliveryResponse })
  redeliver(@CurrentCtx() ctx: TenantContext, @Param() params: DeliveryParams): Promise<WebhookDeliveryResponse> {
    return this.webhooks.redeliver(ctx, params.id, params.deliveryId);
  }

  @Post('webhooks/:id/test')
  @RequirePermission('developer.manage')
  @HttpCode(200)
  @ApiOperation({ summary: 'Deliver a webhook.test event now' })
  @ApiOkResponse({ type: WebhookTestResponse })
  test(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<WebhookTestResponse> {
    return this.webhooks.test(ctx, id);
  }

  @Post('webhooks/:id/rotate-secret')
  @RequirePermission('developer.manage')
  @HttpCode(200)
  @ApiOperation({ summary: 'New signing secret (returned once); the old one also signs for 24 h' })
  @ApiOkResponse({ type: WebhookWithSecretResponse })
  rotateSecret(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<WebhookWithSecretResponse> {
    return this.webhooks.rotateSecret(ctx, id);
  }
}
