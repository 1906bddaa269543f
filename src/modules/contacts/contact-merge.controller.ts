import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { Page } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ContactMergeService } from './contact-merge.service';
import { ContactResponse } from './dto/contact.dto';
import {
  type DuplicateGroupResponse,
  DuplicatePageResponse,
  ListDuplicatesQuery,
  MergeContactsDto,
} from './dto/merge.dto';

/** Registered before ContactsController so `/contacts/duplicates` is not taken for an id. */
@ApiTags('contacts')
@Controller('contacts')
export class ContactMergeController {
  constructor(private readonly merges: ContactMergeService) {}

  @Get('duplicates')
  @RequirePermission('contacts.view')
  @ApiOkResponse({ type: DuplicatePageResponse, description: 'EMAIL groups first, then PHONE, then NAME' })
  @ApiOperation({ summary: 'List likely duplicate contacts' })
  duplicates(
    @CurrentCtx() ctx: TenantContext,
    @Query() query: ListDuplicatesQuery,
  ): Promise<Page<DuplicateGroupResponse>> {
    return this.merges.duplicates(ctx, query);
  }

  @Post('merge')
  @RequirePermission('contacts.merge')
  @HttpCode(200)
  @ApiOkResponse({ type: ContactResponse, description: 'The merged primary contact' })
  @ApiNotFoundResponse({ description: 'An id is unknown or of another workspace' })
  @ApiOperation({ summary: 'Merge duplicate contacts into one' })
  merge(@CurrentCtx() ctx: TenantContext, @Body() dto: MergeContactsDto): Promise<ContactResponse> {
    return this.merges.merge(ctx, dto);
  }
}
