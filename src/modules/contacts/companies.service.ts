import { Injectable } from '@nestjs/common';
import { type Page, mapPage } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { CompaniesRepository } from './companies.repository';
import {
  type CompanyResponse,
  type CreateCompanyDto,
  type ListCompaniesQuery,
  toCompanyResponse,
} from './dto/company.dto';

@Injectable()
export class CompaniesService {
  constructor(private readonly companies: CompaniesRepository) {}

  async list(_ctx: TenantContext, query: ListCompaniesQuery): Promise<Page<CompanyResponse>> {
    return mapPage(await this.companies.findPage(query), toCompanyResponse);
  }

  /** A domain already used by another company of the workspace → 409. */
  async create(_ctx: TenantContext, dto: CreateCompanyDto): Promise<CompanyResponse> {
    return toCompanyResponse(await this.companies.create({ name: dto.name, domain: dto.domain ?? null }));
  }
}
