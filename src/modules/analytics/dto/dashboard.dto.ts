import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { WIDGET_TYPES, type WidgetType } from '../analytics-meta';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const upper = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim().toUpperCase() : value;

export class WidgetPositionDto {
  @ApiProperty({ minimum: 0, maximum: 1000 }) @IsInt() @Min(0) @Max(1000) readonly x: number;
  @ApiProperty({ minimum: 0, maximum: 1000 }) @IsInt() @Min(0) @Max(1000) readonly y: number;
  @ApiProperty({ minimum: 1, maximum: 48 }) @IsInt() @Min(1) @Max(48) readonly w: number;
  @ApiProperty({ minimum: 1, maximum: 48 }) @IsInt() @Min(1) @Max(48) readonly h: number;
}

export class WidgetDto {
  @ApiPropertyOptional({ maxLength: 100, description: 'Your id for the widget; default: a new UUID' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  readonly id?: string;

  @ApiProperty({ enum: WIDGET_TYPES })
  @Transform(upper)
  @IsIn(WIDGET_TYPES)
  readonly type: WidgetType;

  @ApiProperty({ example: 'summary', description: 'A source key of GET /analytics/meta' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(50)
  readonly source: string;

  @ApiProperty({ example: 'conversations.new', description: 'A metric key of that source' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  readonly metric: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true, description: 'Free-form display options' })
  @IsOptional()
  @IsObject()
  readonly options?: Record<string, unknown>;

  @ApiProperty({ type: WidgetPositionDto })
  @IsObject()
  @ValidateNested()
  @Type(() => WidgetPositionDto)
  readonly position: WidgetPositionDto;
}

export class CreateDashboardDto {
  @ApiProperty({ maxLength: 200 })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  readonly name: string;

  @ApiPropertyOptional({ default: false, description: 'Visible to every member with analytics.view' })
  @IsOptional()
  @IsBoolean()
  readonly shared?: boolean;

  @ApiPropertyOptional({ type: [WidgetDto], maxItems: 50 })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => WidgetDto)
  readonly widgets?: WidgetDto[];
}

export class UpdateDashboardDto extends PartialType(CreateDashboardDto) {}

export class WidgetResponse {
  @ApiProperty() readonly id: string;
  @ApiProperty({ enum: WIDGET_TYPES }) readonly type: string;
  @ApiProperty() readonly source: string;
  @ApiProperty() readonly metric: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) readonly options: Record<string, unknown>;
  @ApiProperty({ type: WidgetPositionDto }) readonly position: { x: number; y: number; w: number; h: number };
}

export class DashboardResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly name: string;
  @ApiProperty({ type: [WidgetResponse] }) readonly widgets: WidgetResponse[];
  @ApiProperty() readonly shared: boolean;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) readonly ownerId: string | null;
  @ApiProperty() readonly createdAt: string;
  @ApiProperty() readonly updatedAt: string;
}

export class DashboardListResponse {
  @ApiProperty({ type: [DashboardResponse] }) readonly data: DashboardResponse[];
  @ApiProperty({ nullable: true, type: String }) readonly nextCursor: string | null;
}
