import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import { CursorPaginationQuery } from 'src/core/http/pagination';
import { upper } from 'src/core/http/transforms';
import {
  CATALOG_ITEM_SOURCES,
  CATALOG_ITEM_STATUSES,
  type CatalogItemEntity,
  type CatalogItemSource,
  type CatalogItemStatus,
  type CatalogPrice,
} from '../catalog-item.entity';
import { MAX_KEYWORDS, MAX_TEXT } from '../csv/csv-cells.util';
import { formatPriceDisplay } from '../price.util';
import { CatalogItemFieldsDto, PRICE_SCHEMA } from './catalog-item-fields.dto';

/** Fields a person may set on an item (the feed's fields plus local keywords). */
export class CreateCatalogItemDto extends CatalogItemFieldsDto {
  @ApiPropertyOptional({
    description: 'Your own id of the product (unique in the workspace; the feed and CSV match on it)',
    nullable: true,
    type: String,
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT.id)
  readonly externalId?: string | null;

  @ApiProperty({ example: 'Espresso Machine Pro' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT.name)
  readonly name: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Local search words; never touched by the feed, CSV ids or website syncs',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_KEYWORDS)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(MAX_TEXT.keyword, { each: true })
  readonly keywords?: string[] | null;
}

/** Only the fields sent change; null clears an optional field. `status` puts an item back on sale (or off). */
export class UpdateCatalogItemDto extends CatalogItemFieldsDto {
  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT.id)
  readonly externalId?: string | null;

  @ApiPropertyOptional()
  @ValidateIf((o: UpdateCatalogItemDto) => o.name !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT.name)
  readonly name?: string;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_KEYWORDS)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(MAX_TEXT.keyword, { each: true })
  readonly keywords?: string[] | null;

  @ApiPropertyOptional({ enum: CATALOG_ITEM_STATUSES })
  @IsOptional()
  @Transform(upper)
  @IsIn(CATALOG_ITEM_STATUSES)
  readonly status?: CatalogItemStatus;
}

export const LIST_STATUSES = [...CATALOG_ITEM_STATUSES, 'ALL'] as const;

export class ListCatalogItemsQuery extends CursorPaginationQuery {
  @ApiPropertyOptional({ description: 'Free text over name, SKU, description and keywords (case-insensitive)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  readonly search?: string;

  @ApiPropertyOptional({ description: 'Exact category (case-insensitive)' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT.category)
  readonly category?: string;

  @ApiPropertyOptional({ enum: LIST_STATUSES, default: 'ON_SALE' })
  @IsOptional()
  @Transform(upper)
  @IsIn(LIST_STATUSES)
  readonly status?: (typeof LIST_STATUSES)[number];

  @ApiPropertyOptional({ enum: CATALOG_ITEM_SOURCES })
  @IsOptional()
  @Transform(upper)
  @IsIn(CATALOG_ITEM_SOURCES)
  readonly source?: CatalogItemSource;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  readonly websiteId?: string;

  @ApiPropertyOptional({ description: 'true: stock above 0 or not counted; false: stock 0', type: Boolean })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsIn([true, false], { message: 'must be true or false' })
  readonly inStock?: boolean;
}

export class CatalogItemResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ nullable: true, type: String, description: "The caller's own id" }) readonly externalId: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly name: string | null;
  @ApiProperty(PRICE_SCHEMA) readonly price: CatalogPrice | null;
  @ApiProperty({ nullable: true, type: String, example: '1,299.50' }) readonly priceDisplay: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly currency: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly description: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly sku: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly category: string | null;
  @ApiProperty({ nullable: true, type: Number }) readonly stock: number | null;
  @ApiProperty({ type: [String] }) readonly images: string[];
  @ApiProperty({ type: [String] }) readonly keywords: string[];
  @ApiProperty({ enum: CATALOG_ITEM_STATUSES }) readonly status: CatalogItemStatus;
  @ApiProperty({ enum: CATALOG_ITEM_SOURCES }) readonly source: CatalogItemSource;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) readonly websiteId: string | null;
  @ApiProperty({ nullable: true, type: String, description: "The product's id on the website (synced items)" })
  readonly websiteProductId: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'What a sync changed that you should know (e.g. a local price replaced)',
  })
  readonly notice: string | null;
  @ApiProperty() readonly createdAt: string;
  @ApiProperty() readonly updatedAt: string;
}

export function toCatalogItemResponse(item: CatalogItemEntity): CatalogItemResponse {
  return {
    id: item.id,
    externalId: item.externalId,
    name: item.name,
    price: item.price,
    priceDisplay: formatPriceDisplay(item.price),
    currency: item.currency,
    description: item.description,
    sku: item.sku,
    category: item.category,
    stock: item.stock,
    images: item.images,
    keywords: item.keywords,
    status: item.status,
    source: item.source,
    websiteId: item.websiteId,
    websiteProductId: item.websiteProductId,
    notice: item.notice,
    createdAt: item.createdAt.toISOString(),
    updatedAt: item.updatedAt.toISOString(),
  };
}
