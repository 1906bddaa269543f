import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsNotEmpty, IsString, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { MAX_TEXT } from '../csv/csv-cells.util';
import { CatalogItemFieldsDto } from './catalog-item-fields.dto';

export const FEED_MAX_ITEMS = 500;

/** The feed's item fields besides `id` (SPEC §2); the order is the order of the per-row "sent" mask. */
export const FEED_FIELDS = ['name', 'price', 'currency', 'description', 'sku', 'category', 'stock', 'images'] as const;
export type FeedField = (typeof FEED_FIELDS)[number];

/** One catalogue item of the feed (SPEC §2). Only the fields present are changed on an existing item; null clears. */
export class FeedItemDto extends CatalogItemFieldsDto {
  @ApiProperty({
    description: 'Your own id of the product; an existing id updates, a new one creates',
    example: 'SKU-1042',
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT.id)
  readonly id: string;

  @ApiPropertyOptional()
  @ValidateIf((o: FeedItemDto) => o.name !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT.name)
  readonly name?: string;
}

export class FeedUpsertDto {
  @ApiProperty({ type: [FeedItemDto], minItems: 1, maxItems: FEED_MAX_ITEMS })
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => FeedItemDto)
  readonly items: FeedItemDto[];
}

/**
 * What the feed handler receives. An interface (not the class) on purpose: the parameter's design
 * type is then Object, so the global ValidationPipe leaves the body to FeedItemsPipe, which checks
 * the item count (413) before validating any item (400).
 */
export interface FeedUpsertInput {
  readonly items: readonly FeedItemDto[];
}

export class FeedItemResult {
  @ApiProperty({ description: 'Your own id of the item' }) readonly id: string;
  @ApiProperty({ enum: ['created', 'updated'] }) readonly status: 'created' | 'updated';
}

export class FeedUpsertResponse {
  @ApiProperty() readonly created: number;
  @ApiProperty() readonly updated: number;
  @ApiProperty({ type: [FeedItemResult], description: 'One per item, in the order sent' })
  readonly items: FeedItemResult[];
}

export class FeedDeleteResponse {
  @ApiProperty() readonly id: string;
  @ApiProperty({ enum: ['OFF_SALE'] }) readonly status: 'OFF_SALE';
}

export class FeedIdParam {
  @ApiProperty({ description: 'Your own id of the item' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT.id)
  readonly id: string;
}
