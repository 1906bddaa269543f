import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { AnyMember } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { PresenceResponse, SetPresenceDto } from './dto/queue.dto';
import { PresenceService } from './presence.service';

@ApiTags('analytics')
@Controller('analytics/presence')
export class PresenceController {
  constructor(private readonly presence: PresenceService) {}

  @Post()
  @AnyMember()
  @HttpCode(200)
  @ApiOkResponse({ type: PresenceResponse })
  @ApiOperation({ summary: 'Set presence (ONLINE receives conversations)' })
  set(@CurrentCtx() ctx: TenantContext, @Body() dto: SetPresenceDto): Promise<PresenceResponse> {
    return this.presence.set(ctx, dto);
  }
}
