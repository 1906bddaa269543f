import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiTags,
  ApiOperation,
} from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import { CursorPaginationQuery, type Page } from 'src/core/http/pagination';
import { IdParam } from 'src/core/http/uuid-param.dto';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ContactFieldsService } from './contact-fields.service';
import {
  ContactFieldPageResponse,
  ContactFieldResponse,
  CreateContactFieldDto,
  UpdateContactFieldDto,
} from './dto/contact-field.dto';

@ApiTags('contacts')
@Controller('contacts/fields')
export class ContactFieldsController {
  constructor(private readonly fields: ContactFieldsService) {}

  @Get()
  @RequirePermission('contacts.view')
  @ApiOkResponse({ type: ContactFieldPageResponse, description: 'In creation order' })
  @ApiOperation({ summary: 'List contact custom fields' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: CursorPaginationQuery): Promise<Page<ContactFieldResponse>> {
    return this.fields.list(ctx, query);
  }

  @Post()
  @RequirePermission('contacts.fields')
  @HttpCode(201)
  @ApiCreatedResponse({ type: ContactFieldResponse })
  @ApiConflictResponse({ description: 'The key is taken' })
  @ApiOperation({ summary: 'Create a contact custom field' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateContactFieldDto): Promise<ContactFieldResponse> {
    return this.fields.create(ctx, dto);
  }

  @Put(':id')
  @RequirePermission('contacts.fields')
  @ApiOkResponse({ type: ContactFieldResponse, description: 'label, options and required; key and type are fixed' })
  @ApiOperation({ summary: 'Change a contact custom field' })
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: UpdateContactFieldDto,
  ): Promise<ContactFieldResponse> {
    return this.fields.update(ctx, id, dto);
  }

  @Delete(':id')
  @RequirePermission('contacts.fields')
  @HttpCode(204)
  @ApiNoContentResponse({ description: "Deleted, with the field's value on every contact" })
  @ApiOperation({ summary: 'Delete a contact custom field' })
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.fields.remove(ctx, id);
  }
}
