import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsISO8601, IsOptional, IsString, IsUUID } from 'class-validator';
import { CursorPaginationQuery } from 'src/core/http/pagination';

export class ReportKeyParam {
  @ApiProperty({ example: 'conversations' })
  @IsString()
  readonly key: string;
}

export class ReportQuery extends CursorPaginationQuery {
  @ApiPropertyOptional({ description: 'Rows at or after (ISO 8601; the report’s time column)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly from?: string;

  @ApiPropertyOptional({ description: 'Rows before (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly to?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all')
  readonly channelId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all')
  readonly queueId?: string;
}

export class ReportExportQuery {
  @ApiPropertyOptional({ enum: ['csv'], default: 'csv' })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsIn(['csv'])
  readonly format?: string;

  @ApiPropertyOptional() @IsOptional() @IsISO8601({ strict: true }) readonly from?: string;
  @ApiPropertyOptional() @IsOptional() @IsISO8601({ strict: true }) readonly to?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID('all') readonly channelId?: string;
  @ApiPropertyOptional({ format: 'uuid' }) @IsOptional() @IsUUID('all') readonly queueId?: string;
}

export class ReportColumnResponse {
  @ApiProperty() readonly key: string;
  @ApiProperty() readonly label: string;
  @ApiProperty({ enum: ['string', 'number', 'timestamp', 'boolean'] }) readonly type: string;
}

export class ReportDefinitionResponse {
  @ApiProperty() readonly key: string;
  @ApiProperty() readonly name: string;
  @ApiProperty() readonly description: string;
  @ApiProperty({ type: [ReportColumnResponse] }) readonly columns: ReportColumnResponse[];
}

export class ReportDefinitionListResponse {
  @ApiProperty({ type: [ReportDefinitionResponse] }) readonly data: ReportDefinitionResponse[];
}

export class ReportResponse {
  @ApiProperty() readonly key: string;
  @ApiProperty({ type: [ReportColumnResponse] }) readonly columns: ReportColumnResponse[];
  @ApiProperty({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description: 'Objects keyed by column key; timestamps ISO 8601 UTC; null where there is no value',
  })
  readonly rows: Record<string, string | number | boolean | null>[];
  @ApiProperty() readonly generatedAt: string;
  @ApiProperty({ nullable: true, type: String }) readonly nextCursor: string | null;
}
