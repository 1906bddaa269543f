import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsEmail,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  MaxLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { MAX_NOTE_LENGTH, MAX_CONTACT_TAG_LENGTH, MAX_CONTACT_TAGS } from 'src/core/domain/vocabulary';
import { CHANNEL_TYPES } from 'src/modules/channels';
import { CursorPaginationQuery } from 'src/core/http/pagination';
import { MAX_NAME_LENGTH } from '../contacts.constants';
import type { CustomFieldValues } from '../custom-fields.util';
import { isPresent, lower, trim, upper } from 'src/core/http/transforms';

export class ContactIdentityDto {
  @ApiProperty({ enum: CHANNEL_TYPES, description: 'Case-insensitive' })
  @Transform(upper)
  @IsIn(CHANNEL_TYPES)
  readonly channelType: string;

  @ApiProperty({ description: 'The channel connection id' })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  readonly channelId: string;

  @ApiProperty({ description: "The person's id on that channel (e.g. the sender id)" })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  readonly externalId: string;
}

export class CreateContactDto {
  @ApiPropertyOptional({ nullable: true, type: String, maxLength: MAX_NAME_LENGTH })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(MAX_NAME_LENGTH)
  readonly name?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, description: 'Stored lower-cased' })
  @IsOptional()
  @Transform(lower)
  @IsEmail()
  @MaxLength(320)
  readonly email?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, description: 'Kept as sent; matched by its digits' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  readonly phone?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uri' })
  @IsOptional()
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true })
  @MaxLength(2000)
  readonly avatarUrl?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid' })
  @IsOptional()
  @IsString()
  readonly companyId?: string | null;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Values by custom field key, validated against GET /contacts/fields; null removes a value on update',
  })
  @ValidateIf(isPresent)
  @IsObject()
  readonly customFields?: Record<string, unknown>;

  @ApiPropertyOptional({ type: [String], description: `Lower-cased; at most ${MAX_CONTACT_TAGS}` })
  @ValidateIf(isPresent)
  @IsArray()
  @ArrayMaxSize(MAX_CONTACT_TAGS)
  @IsString({ each: true })
  @MaxLength(MAX_CONTACT_TAG_LENGTH, { each: true })
  readonly tags?: string[];

  @ApiPropertyOptional({
    type: [ContactIdentityDto],
    description:
      'Channel identities; each may belong to one contact only. On update the list replaces the current one.',
  })
  @ValidateIf(isPresent)
  @IsArray()
  @ArrayMaxSize(20)
  @ValidateNested({ each: true })
  @Type(() => ContactIdentityDto)
  readonly identities?: ContactIdentityDto[];
}

/** Only the fields sent change; null clears a field. */
export class UpdateContactDto extends CreateContactDto {}

export class ListContactsQuery extends CursorPaginationQuery {
  @ApiPropertyOptional({ description: 'Case-insensitive text in name, email or phone' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(200)
  readonly search?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all')
  readonly companyId?: string;

  @ApiPropertyOptional({ description: 'Contacts carrying this tag (case-insensitive)' })
  @IsOptional()
  @Transform(lower)
  @IsString()
  @MaxLength(MAX_CONTACT_TAG_LENGTH)
  readonly tag?: string;

  @ApiPropertyOptional({ description: 'Exact email, case-insensitive' })
  @IsOptional()
  @Transform(lower)
  @IsString()
  @MaxLength(320)
  readonly email?: string;

  @ApiPropertyOptional({ description: 'Phone, compared by its digits' })
  @IsOptional()
  @IsString()
  @MaxLength(50)
  readonly phone?: string;

  @ApiPropertyOptional({ description: 'Created at or after (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly from?: string;

  @ApiPropertyOptional({ description: 'Created before (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly to?: string;
}

export class CreateContactNoteDto {
  @ApiProperty({ maxLength: MAX_NOTE_LENGTH })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_NOTE_LENGTH)
  readonly text: string;
}

export class ContactIdentityResponse {
  @ApiProperty({ enum: CHANNEL_TYPES }) readonly channelType: string;
  @ApiProperty() readonly channelId: string;
  @ApiProperty() readonly externalId: string;
}

export class ContactCompanySummary {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly name: string;
}

export class ContactResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ nullable: true, type: String }) readonly name: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly email: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly phone: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly avatarUrl: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) readonly companyId: string | null;
  @ApiProperty({ nullable: true, type: ContactCompanySummary }) readonly company: ContactCompanySummary | null;
  @ApiProperty({ type: 'object', additionalProperties: true }) readonly customFields: CustomFieldValues;
  @ApiProperty({ type: [String] }) readonly tags: string[];
  @ApiProperty({ type: [ContactIdentityResponse] }) readonly identities: ContactIdentityResponse[];
  @ApiProperty() readonly createdAt: string;
  @ApiProperty() readonly updatedAt: string;
}

export class ContactNoteResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ format: 'uuid' }) readonly contactId: string;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'uuid',
    description: 'The user; null when written with an API token',
  })
  readonly authorId: string | null;
  @ApiProperty() readonly text: string;
  @ApiProperty() readonly createdAt: string;
}

export class ContactDetailResponse extends ContactResponse {
  @ApiProperty({ type: [ContactNoteResponse], description: 'Latest 100 notes, newest first' })
  readonly notes: ContactNoteResponse[];
}

export class ContactPageResponse {
  @ApiProperty({ type: [ContactResponse] }) readonly data: ContactResponse[];
  @ApiProperty({ nullable: true, type: String }) readonly nextCursor: string | null;
}
