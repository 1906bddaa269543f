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
import {
  MAX_NOTE_LENGTH,
  MAX_SUBJECT_LENGTH,
  MAX_TAG_LENGTH,
  MAX_TAGS,
  PRIORITIES,
  type Priority,
} from 'src/core/domain/vocabulary';
import { isPresent, isSet, tagList, trim, upper } from 'src/core/http/transforms';

/** `POST /conversations`: start a conversation from our side. */
export class CreateConversationDto {
  @ApiProperty({ format: 'uuid', description: 'A contact with an identity on the channel' })
  @IsUUID('all')
  readonly contactId: string;

  @ApiProperty({ format: 'uuid', description: 'An ACTIVE channel connection' })
  @IsUUID('all')
  readonly channelId: string;

  @ApiPropertyOptional({ description: 'A first OUTBOUND message, delivered like any reply' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(4096)
  readonly text?: string;

  @ApiPropertyOptional({ enum: PRIORITIES, default: 'MEDIUM', description: 'Case-insensitive' })
  @ValidateIf(isPresent)
  @Transform(upper)
  @IsIn(PRIORITIES)
  readonly priority?: Priority;

  @ApiPropertyOptional({ format: 'uuid', description: 'Default: the default queue' })
  @IsOptional()
  @IsUUID('all')
  readonly queueId?: string;

  @ApiPropertyOptional({ maxLength: MAX_SUBJECT_LENGTH })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_SUBJECT_LENGTH)
  readonly subject?: string;
}

/** `PUT /conversations/:id`: only the fields sent change; `subject: null` clears it. */
export class UpdateConversationDto {
  @ApiPropertyOptional({ enum: PRIORITIES, description: 'Case-insensitive' })
  @ValidateIf(isPresent)
  @Transform(upper)
  @IsIn(PRIORITIES)
  readonly priority?: Priority;

  @ApiPropertyOptional({ type: [String], description: `Replaces the tags; lower-cased; at most ${MAX_TAGS}` })
  @ValidateIf(isPresent)
  @Transform(tagList)
  @IsArray()
  @ArrayMaxSize(MAX_TAGS)
  @IsString({ each: true })
  @IsNotEmpty({ each: true })
  @MaxLength(MAX_TAG_LENGTH, { each: true })
  readonly tags?: string[];

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: MAX_SUBJECT_LENGTH })
  @ValidateIf(isSet)
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_SUBJECT_LENGTH)
  readonly subject?: string | null;
}

/** `PUT /conversations/:id/assign`: `assigneeId: null` unassigns; `queueId` moves it to another queue. */
export class AssignConversationDto {
  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid', description: 'A member of the workspace' })
  @ValidateIf(isSet)
  @IsUUID('all')
  readonly assigneeId?: string | null;

  @ApiPropertyOptional({ format: 'uuid' })
  @ValidateIf(isPresent)
  @IsUUID('all')
  readonly queueId?: string;
}

export class HoldConversationDto {
  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(500)
  readonly reason?: string;
}

export class WrapUpConversationDto {
  @ApiPropertyOptional({ maxLength: 100, example: 'solved' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(100)
  readonly outcome?: string;

  @ApiPropertyOptional({ maxLength: 2000 })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(2000)
  readonly note?: string;
}

export class CreateConversationNoteDto {
  @ApiProperty({ maxLength: MAX_NOTE_LENGTH })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_NOTE_LENGTH)
  readonly text: string;
}

export class ConversationNoteResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'Null when written with an API token' })
  readonly authorId: string | null;
  @ApiProperty() readonly text: string;
  @ApiProperty() readonly createdAt: string;
}
