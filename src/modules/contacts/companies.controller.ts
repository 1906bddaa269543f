import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiConflictResponse, ApiCreatedResponse, ApiOkResponse, ApiTags, ApiOperation } from '@nestjs/swagger';
import { RequirePermission } from 'src/core/auth/decorators/auth.decorators';
import { CurrentCtx } from 'src/core/auth/decorators/current-ctx.decorator';
import type { Page } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { CompaniesService } from './companies.service';
import { CompanyPageResponse, CompanyResponse, CreateCompanyDto, ListCompaniesQuery } from './dto/company.dto';

@ApiTags('contacts')
@Controller('contacts/companies')
export class CompaniesController {
  constructor(private readonly companies: CompaniesService) {}

  @Get()
  @RequirePermission('contacts.view')
  @ApiOkResponse({ type: CompanyPageResponse, description: 'Newest first' })
  @ApiOperation({ summary: 'List companies' })
  list(@CurrentCtx() ctx: TenantContext, @Query() query: ListCompaniesQuery): Promise<Page<CompanyResponse>> {
    return this.companies.list(ctx, query);
  }

  @Post()
  @RequirePermission('contacts.manage')
  @HttpCode(201)
  @ApiCreatedResponse({ type: CompanyResponse })
  @ApiConflictResponse({ description: 'Another company of the workspace has this domain' })
  @ApiOperation({ summary: 'Create a company' })
  create(@CurrentCtx() ctx: TenantContext, @Body() dto: CreateCompanyDto): Promise<CompanyResponse> {
    return this.companies.create(ctx, dto);
  }
}
