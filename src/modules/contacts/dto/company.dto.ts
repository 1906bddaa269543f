import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsFQDN, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { CursorPaginationQuery } from 'src/core/http/pagination';
import type { CompanyEntity } from '../company.entity';
import { MAX_NAME_LENGTH } from '../contacts.constants';
import { lower, trim } from 'src/core/http/transforms';

export class CreateCompanyDto {
  @ApiProperty({ maxLength: MAX_NAME_LENGTH })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_NAME_LENGTH)
  readonly name: string;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: 'example.com',
    description: 'Lower-cased; unique per workspace',
  })
  @IsOptional()
  @Transform(lower)
  @IsFQDN({ require_tld: true })
  @MaxLength(253)
  readonly domain?: string | null;
}

export class ListCompaniesQuery extends CursorPaginationQuery {
  @ApiPropertyOptional({ description: 'Case-insensitive text in name or domain' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(200)
  readonly search?: string;
}

export class CompanyResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly name: string;
  @ApiProperty({ nullable: true, type: String }) readonly domain: string | null;
  @ApiProperty() readonly createdAt: string;
}

export class CompanyPageResponse {
  @ApiProperty({ type: [CompanyResponse] }) readonly data: CompanyResponse[];
  @ApiProperty({ nullable: true, type: String }) readonly nextCursor: string | null;
}

export function toCompanyResponse(c: CompanyEntity): CompanyResponse {
  return { id: c.id, name: c.name, domain: c.domain, createdAt: c.createdAt.toISOString() };
}
