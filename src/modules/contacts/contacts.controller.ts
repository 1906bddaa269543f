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
import { ContactsService } from './contacts.service';
import {
  ContactDetailResponse,
  ContactNoteResponse,
  ContactPageResponse,
  ContactResponse,
  CreateContactDto,
  CreateContactNoteDto,
  ListContactsQuery,
  UpdateContactDto,
} from './dto/contact.dto';

@ApiTags('contacts')
@Controller('contacts')
export class ContactsController {
  constructor(private readonly contacts: ContactsService) {}

  @Get()
  @RequirePermission('contacts.view')
  @ApiOkResponse({ type: ContactPageResponse, description: 'Newest first' })
  @ApiOperation({ summary: 'List contacts' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: ListContactsQuery): Promise<Page<ContactResponse>> {
    return this.contacts.list(ctx, query);
  }

  @Post()
  @RequirePermission('contacts.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: ContactResponse })
  @ApiConflictResponse({ description: 'A channel identity already belongs to another contact' })
  @ApiOperation({ summary: 'Create a contact' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateContactDto): Promise<ContactResponse> {
    return this.contacts.create(ctx, dto);
  }

  @Get(':id')
  @RequirePermission('contacts.view')
  @ApiOkResponse({ type: ContactDetailResponse })
  @ApiNotFoundResponse()
  @ApiOperation({ summary: 'Get a contact' })
  get(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<ContactDetailResponse> {
    return this.contacts.get(ctx, id);
  }

  @Put(':id')
  @RequirePermission('contacts.manage')
  @ApiOkResponse({ type: ContactResponse, description: 'Only the fields sent change; null clears a field' })
  @ApiNotFoundResponse()
  @ApiOperation({ summary: 'Change a contact' })
  update(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: UpdateContactDto,
  ): Promise<ContactResponse> {
    return this.contacts.update(ctx, id, dto);
  }

  @Delete(':id')
  @RequirePermission('contacts.manage')
  @HttpCode(204)
  @ApiNoContentResponse({ description: 'Deleted with its identities and notes' })
  @ApiOperation({ summary: 'Delete a contact' })
  remove(@CurrentCtx() ctx: TenantContext, @Param() { id }: IdParam): Promise<void> {
    return this.contacts.remove(ctx, id);
  }

  @Post(':id/notes')
  @RequirePermission('contacts.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: ContactNoteResponse })
  @ApiOperation({ summary: 'Add a note to a contact' })
  addNote(
    @CurrentCtx() ctx: TenantContext,
    @Param() { id }: IdParam,
    @Body() dto: CreateContactNoteDto,
  ): Promise<ContactNoteResponse> {
    return this.contacts.addNote(ctx, id, dto);
  }
}
