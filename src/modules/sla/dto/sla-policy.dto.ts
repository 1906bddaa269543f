import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { PRIORITIES } from 'src/core/domain/vocabulary';
import { MAX_SLA_MINUTES, SLA_CHANNEL_TYPES } from '../sla.constants';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const upperEach = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v.trim().toUpperCase() : v)) : value;
const lowerEach = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v)) : value;
/** Present (even null) → validate; absent → skip. For fields where null is not a valid value. */
const isPresent = (_: object, value: unknown): boolean => value !== undefined;

export class SlaConditionsDto {
  @ApiPropertyOptional({ enum: PRIORITIES, isArray: true, description: 'Empty = any; case-insensitive' })
  @ValidateIf(isPresent)
  @IsArray()
  @ArrayMaxSize(PRIORITIES.length)
  @Transform(upperEach)
  @IsIn(PRIORITIES, { each: true })
  @ArrayUnique()
  readonly priorities?: string[];

  @ApiPropertyOptional({ enum: SLA_CHANNEL_TYPES, isArray: true, description: 'Empty = any; case-insensitive' })
  @ValidateIf(isPresent)
  @IsArray()
  @ArrayMaxSize(SLA_CHANNEL_TYPES.length)
  @Transform(upperEach)
  @IsIn(SLA_CHANNEL_TYPES, { each: true })
  @ArrayUnique()
  readonly channelTypes?: string[];

  @ApiPropertyOptional({
    type: [String],
    format: 'uuid',
    description: 'Empty = any. Ids are not checked against the queues: an unknown id never matches.',
  })
  @ValidateIf(isPresent)
  @IsArray()
  @ArrayMaxSize(100)
  @Transform(lowerEach)
  @IsUUID('all', { each: true })
  @ArrayUnique()
  readonly queueIds?: string[];
}

export class CreateSlaPolicyDto {
  @ApiProperty({ maxLength: 200, example: 'Urgent chats' })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  readonly name: string;

  @ApiPropertyOptional({ default: true })
  @ValidateIf(isPresent)
  @IsBoolean()
  readonly active?: boolean;

  @ApiPropertyOptional({ description: 'Matching order, lowest first; default: after the last policy' })
  @ValidateIf(isPresent)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  readonly order?: number;

  @ApiPropertyOptional({ type: SlaConditionsDto, description: 'Every list empty or omitted = matches everything' })
  @ValidateIf(isPresent)
  @IsObject()
  @ValidateNested()
  @Type(() => SlaConditionsDto)
  readonly conditions?: SlaConditionsDto;

  @ApiProperty({ minimum: 1, maximum: MAX_SLA_MINUTES, description: 'From the conversation’s creation' })
  @IsInt()
  @Min(1)
  @Max(MAX_SLA_MINUTES)
  readonly firstResponseMinutes: number;

  @ApiProperty({ minimum: 1, maximum: MAX_SLA_MINUTES, description: 'From creation to resolution' })
  @IsInt()
  @Min(1)
  @Max(MAX_SLA_MINUTES)
  readonly resolutionMinutes: number;
}

/** Only the fields sent change; inside `conditions`, only the lists sent are replaced. */
export class UpdateSlaPolicyDto {
  @ApiPropertyOptional({ maxLength: 200 })
  @ValidateIf(isPresent)
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  readonly name?: string;

  @ApiPropertyOptional()
  @ValidateIf(isPresent)
  @IsBoolean()
  readonly active?: boolean;

  @ApiPropertyOptional()
  @ValidateIf(isPresent)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  readonly order?: number;

  @ApiPropertyOptional({ type: SlaConditionsDto })
  @ValidateIf(isPresent)
  @IsObject()
  @ValidateNested()
  @Type(() => SlaConditionsDto)
  readonly conditions?: SlaConditionsDto;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_SLA_MINUTES })
  @ValidateIf(isPresent)
  @IsInt()
  @Min(1)
  @Max(MAX_SLA_MINUTES)
  readonly firstResponseMinutes?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_SLA_MINUTES })
  @ValidateIf(isPresent)
  @IsInt()
  @Min(1)
  @Max(MAX_SLA_MINUTES)
  readonly resolutionMinutes?: number;
}

export class SlaConditionsResponse {
  @ApiProperty({ enum: PRIORITIES, isArray: true }) readonly priorities: string[];
  @ApiProperty({ enum: SLA_CHANNEL_TYPES, isArray: true }) readonly channelTypes: string[];
  @ApiProperty({ type: [String] }) readonly queueIds: string[];
}

export class SlaPolicyResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly name: string;
  @ApiProperty() readonly active: boolean;
  @ApiProperty() readonly order: number;
  @ApiProperty({ type: SlaConditionsResponse }) readonly conditions: SlaConditionsResponse;
  @ApiProperty() readonly firstResponseMinutes: number;
  @ApiProperty() readonly resolutionMinutes: number;
  @ApiProperty() readonly createdAt: string;
  @ApiProperty() readonly updatedAt: string;
}

export class SlaPolicyListResponse {
  @ApiProperty({ type: [SlaPolicyResponse], description: 'Every policy, in matching order' })
  readonly data: SlaPolicyResponse[];
  @ApiProperty({ nullable: true, type: String, description: 'Always null: the list is never paged' })
  readonly nextCursor: string | null;
}
