import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import type { ContactFieldEntity } from '../contact-field.entity';
import { CUSTOM_FIELD_TYPES, type CustomFieldType, FIELD_KEY_PATTERN } from '../custom-fields.util';
import { isPresent, trim, upper } from 'src/core/http/transforms';

export const MAX_FIELD_OPTIONS = 200;

export class CreateContactFieldDto {
  @ApiProperty({ example: 'lifetime_value', description: 'snake_case, unique in the workspace; cannot change later' })
  @IsString()
  @MaxLength(64)
  @Matches(FIELD_KEY_PATTERN, {
    message: 'key must be snake_case (a-z, 0-9 and single underscores, starting with a letter)',
  })
  readonly key: string;

  @ApiProperty({ example: 'Lifetime value' })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly label: string;

  @ApiProperty({ enum: CUSTOM_FIELD_TYPES, description: 'Case-insensitive; cannot change later' })
  @Transform(upper)
  @IsIn(CUSTOM_FIELD_TYPES)
  readonly type: CustomFieldType;

  @ApiPropertyOptional({
    type: [String],
    description: 'The choices of a SELECT field (required for SELECT, refused otherwise)',
  })
  @ValidateIf(isPresent)
  @IsArray()
  @ArrayMaxSize(MAX_FIELD_OPTIONS)
  @ArrayUnique()
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(200, { each: true })
  readonly options?: string[];

  @ApiPropertyOptional({
    default: false,
    description: 'Contacts created through the API or an import must carry a value',
  })
  @IsOptional()
  @IsBoolean()
  readonly required?: boolean;
}

/** `key` and `type` are fixed once created (values are stored under the key and typed by it). */
export class UpdateContactFieldDto {
  @ApiPropertyOptional()
  @ValidateIf(isPresent)
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly label?: string;

  @ApiPropertyOptional({ type: [String] })
  @ValidateIf(isPresent)
  @IsArray()
  @ArrayMaxSize(MAX_FIELD_OPTIONS)
  @ArrayUnique()
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(200, { each: true })
  readonly options?: string[];

  @ApiPropertyOptional()
  @ValidateIf(isPresent)
  @IsBoolean()
  readonly required?: boolean;
}

export class ContactFieldResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly key: string;
  @ApiProperty() readonly label: string;
  @ApiProperty({ enum: CUSTOM_FIELD_TYPES }) readonly type: CustomFieldType;
  @ApiProperty({ type: [String] }) readonly options: string[];
  @ApiProperty() readonly required: boolean;
  @ApiProperty() readonly createdAt: string;
  @ApiProperty() readonly updatedAt: string;
}

export class ContactFieldPageResponse {
  @ApiProperty({ type: [ContactFieldResponse] }) readonly data: ContactFieldResponse[];
  @ApiProperty({ nullable: true, type: String }) readonly nextCursor: string | null;
}

export function toContactFieldResponse(f: ContactFieldEntity): ContactFieldResponse {
  return {
    id: f.id,
    key: f.key,
    label: f.label,
    type: f.type,
    options: f.options,
    required: f.required,
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
  };
}
