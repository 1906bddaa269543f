import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { TicketSettingsResponse, UpdateTicketSettingsDto } from './dto/ticket-settings.dto';
import { TicketSettingsService } from './ticket-settings.service';

/** Registered before TicketsController so `/tickets/settings` is never taken for an id. */
@ApiTags('tickets')
@Controller('tickets/settings')
export class TicketSettingsController {
  constructor(private readonly settings: TicketSettingsService) {}

  @Get()
  @RequirePermission('tickets.view')
  @ApiOkResponse({ type: TicketSettingsResponse })
  @ApiOperation({ summary: 'Get ticket settings' })
  get(@CurrentCtx() ctx: TenantContext): Promise<TicketSettingsResponse> {
    return this.settings.get(ctx);
  }

  @Put()
  @RequirePermission('tickets.settings')
  @ApiOkResponse({ type: TicketSettingsResponse, description: 'Only the fields sent change' })
  @ApiOperation({ summary: 'Change ticket settings' })
  update(@CurrentCtx() ctx: TenantContext, @Body() dto: UpdateTicketSettingsDto): Promise<TicketSettingsResponse> {
    return this.settings.update(ctx, dto);
  }
}
