import { ApiProperty, ApiPropertyOptional, type ApiPropertyOptions } from '@nestjs/swagger';
import { IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import type { CatalogPrice } from '../catalog-item.entity';
import { PRICE_SCHEMA } from './catalog-item-fields.dto';
import { IMPORT_FIELDS, type ImportMapping } from '../csv/header-guess.util';

const MAPPING_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: { type: 'string', enum: [...IMPORT_FIELDS, null], nullable: true },
  example: { 'Product Name': 'name', 'Unit price': 'price', Notes: null },
  description: '{header: field | null}; headers left out keep their current field',
};

/** Multipart fields besides `file`. */
export class ImportUploadDto {
  @ApiPropertyOptional({ description: 'Optional JSON {header: field | null} overriding the guessed mapping' })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  readonly mapping?: string;
}

export class ImportMappingDto {
  @ApiProperty(MAPPING_SCHEMA)
  @IsObject()
  readonly mapping: Record<string, unknown>;
}

export class ImportCommitDto {
  @ApiPropertyOptional(MAPPING_SCHEMA)
  @IsOptional()
  @IsObject()
  readonly mapping?: Record<string, unknown>;
}

export class ImportPreviewItem {
  @ApiProperty({ nullable: true, type: String }) readonly externalId: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly name: string | null;
  @ApiProperty(PRICE_SCHEMA) readonly price: CatalogPrice | null;
  @ApiProperty({ nullable: true, type: String }) readonly priceDisplay: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly currency: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly description: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly sku: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly category: string | null;
  @ApiProperty({ nullable: true, type: Number }) readonly stock: number | null;
  @ApiProperty({ type: [String] }) readonly images: string[];
  @ApiProperty({ type: [String] }) readonly keywords: string[];
}

export class ImportPreviewRow {
  @ApiProperty({ description: 'Spreadsheet row number (header = 1)' }) readonly row: number;
  @ApiProperty({ type: ImportPreviewItem }) readonly item: ImportPreviewItem;
  @ApiProperty({ description: 'The item exactly as the AI agent will read it' }) readonly agentText: string;
}

export class ImportPreviewResponse {
  @ApiProperty({ format: 'uuid' }) readonly importId: string;
  @ApiProperty({ type: [String] }) readonly headers: string[];
  @ApiProperty(MAPPING_SCHEMA) readonly mapping: ImportMapping;
  @ApiProperty({ type: [ImportPreviewRow], description: 'The first five importable products' })
  readonly preview: ImportPreviewRow[];
  @ApiProperty({ description: 'Products (non-blank rows below the header) in the file' }) readonly totalRows: number;
  @ApiProperty({ description: 'Rows that cannot be imported with this mapping' }) readonly errorCount: number;
  @ApiProperty({ type: [String] }) readonly warnings: string[];
  @ApiProperty({ description: 'The delimiter detected' }) readonly delimiter: string;
  @ApiProperty() readonly expiresAt: string;
}

export class ImportRowError {
  @ApiProperty({ description: 'Spreadsheet row number (header = 1, first product = 2)' }) readonly row: number;
  @ApiProperty() readonly message: string;
}

export class ImportCommitResponse {
  @ApiProperty({ format: 'uuid' }) readonly importId: string;
  @ApiProperty() readonly totalRows: number;
  @ApiProperty() readonly created: number;
  @ApiProperty() readonly updated: number;
  @ApiProperty({ description: 'Rows not imported' }) readonly errorCount: number;
  @ApiProperty({ type: [ImportRowError], description: 'The first 1,000 rows not imported, by row' })
  readonly errors: ImportRowError[];
}
