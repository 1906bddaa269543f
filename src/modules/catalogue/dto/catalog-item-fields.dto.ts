import { ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import type { CatalogPrice } from '../catalog-item.entity';
import { MAX_IMAGES, MAX_TEXT } from '../csv/csv-cells.util';
import { IsCatalogPrice, IsHttpUrlEach } from './validators';

/** A number, or text shown verbatim ("Ask us"), or null (OpenAPI 3.0: nullable inside each branch). */
export const PRICE_SCHEMA: ApiPropertyOptions = {
  anyOf: [
    { type: 'number', nullable: true },
    { type: 'string', nullable: true },
  ],
  example: 1299.5,
};

/**
 * The product fields of SPEC §2 besides the ids and the name, with one set of rules for every way
 * an item is written: `POST /catalog`, `PUT /catalog/:id` and the feed. Absent leaves a field alone,
 * null clears it.
 */
export class CatalogItemFieldsDto {
  @ApiPropertyOptional({
    ...PRICE_SCHEMA,
    description: 'Kept exactly as sent: a number (shown with thousands separators) or a string (shown verbatim)',
  })
  @IsOptional()
  @IsCatalogPrice()
  readonly price?: CatalogPrice | null;

  @ApiPropertyOptional({ example: 'USD', nullable: true, type: String })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT.currency)
  readonly currency?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT.description)
  readonly description?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT.sku)
  readonly sku?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT.category)
  readonly category?: string | null;

  @ApiPropertyOptional({
    description: 'Units in stock; null (or omitted) when not counted',
    nullable: true,
    type: Number,
    minimum: 0,
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  readonly stock?: number | null;

  @ApiPropertyOptional({ type: [String], nullable: true, description: 'Image URLs (http/https)' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_IMAGES)
  @IsHttpUrlEach()
  readonly images?: string[] | null;
}
