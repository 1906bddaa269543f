import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNotFoundResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { CreateCsatDto, CsatResponse } from './dto/csat.dto';
import { CsatService } from './csat.service';

@ApiTags('reports')
@Controller('csat')
export class CsatController {
  constructor(private readonly csat: CsatService) {}

  @Post()
  @RequirePermission('conversations.reply')
  @HttpCode(201)
  @ApiOperation({ summary: 'Record a conversation’s CSAT rating (a later one replaces it); fires csat.received' })
  @ApiCreatedResponse({ type: CsatResponse })
  @ApiNotFoundResponse({ description: 'Unknown conversation, or one of another workspace' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateCsatDto): Promise<CsatResponse> {
    return this.csat.record(ctx, dto);
  }
}
