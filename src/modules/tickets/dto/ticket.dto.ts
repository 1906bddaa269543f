import { ApiProperty, ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { MAX_SUBJECT_LENGTH, MAX_TAG_LENGTH, MAX_TAGS, PRIORITIES, type Priority } from 'src/core/domain/vocabulary';
import { CursorPaginationQuery } from 'src/core/http/pagination';
import { ASSIGNEE_FILTER, isPresent, isSet, lower, trim, upper, upperList } from 'src/core/http/transforms';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  ValidateIf,
} from 'class-validator';
import {
  MAX_COMMENT_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  TICKET_SOURCES,
  TICKET_STATUSES,
  type TicketSource,
  type TicketStatus,
} from '../tickets.constants';

export class CreateTicketDto {
  @ApiProperty({ maxLength: MAX_SUBJECT_LENGTH })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_SUBJECT_LENGTH)
  readonly subject: string;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: MAX_DESCRIPTION_LENGTH })
  @ValidateIf(isSet)
  @IsString()
  @MaxLength(MAX_DESCRIPTION_LENGTH)
  readonly description?: string | null;

  @ApiPropertyOptional({ enum: TICKET_STATUSES, default: 'OPEN', description: 'Case-insensitive' })
  @ValidateIf(isPresent)
  @Transform(upper)
  @IsIn(TICKET_STATUSES)
  readonly status?: TicketStatus;

  @ApiPropertyOptional({ enum: PRIORITIES, description: 'Case-insensitive; default: the settings’ defaultPriority' })
  @ValidateIf(isPresent)
  @Transform(upper)
  @IsIn(PRIORITIES)
  readonly priority?: Priority;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid', description: 'A member of the workspace' })
  @ValidateIf(isSet)
  @IsUUID('all')
  readonly assigneeId?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid' })
  @ValidateIf(isSet)
  @IsUUID('all')
  readonly queueId?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    format: 'uuid',
    description: 'Default: the conversation’s contact',
  })
  @ValidateIf(isSet)
  @IsUUID('all')
  readonly contactId?: string | null;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    format: 'uuid',
    description: 'Link to a conversation you can see',
  })
  @ValidateIf(isSet)
  @IsUUID('all')
  readonly conversationId?: string | null;

  @ApiPropertyOptional({ type: [String], description: `Lower-cased; at most ${MAX_TAGS}` })
  @ValidateIf(isPresent)
  @IsArray()
  @ArrayMaxSize(MAX_TAGS)
  @IsString({ each: true })
  @MaxLength(MAX_TAG_LENGTH, { each: true })
  readonly tags?: string[];

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    description: 'ISO 8601; default: creation + the matching SLA policy’s resolution minutes',
  })
  @ValidateIf(isSet)
  @IsISO8601({ strict: true })
  readonly dueAt?: string | null;
}

/** Only the fields sent change; null clears a field. A CLOSED ticket only accepts `status: OPEN`. */
export class UpdateTicketDto {
  @ApiPropertyOptional({ maxLength: MAX_SUBJECT_LENGTH })
  @ValidateIf(isPresent)
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_SUBJECT_LENGTH)
  readonly subject?: string;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: MAX_DESCRIPTION_LENGTH })
  @ValidateIf(isSet)
  @IsString()
  @MaxLength(MAX_DESCRIPTION_LENGTH)
  readonly description?: string | null;

  @ApiPropertyOptional({
    enum: TICKET_STATUSES,
    description: 'Any status to any other, except that CLOSED can only go back to OPEN (409 invalid_transition)',
  })
  @ValidateIf(isPresent)
  @Transform(upper)
  @IsIn(TICKET_STATUSES)
  readonly status?: TicketStatus;

  @ApiPropertyOptional({ enum: PRIORITIES })
  @ValidateIf(isPresent)
  @Transform(upper)
  @IsIn(PRIORITIES)
  readonly priority?: Priority;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid' })
  @ValidateIf(isSet)
  @IsUUID('all')
  readonly assigneeId?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid' })
  @ValidateIf(isSet)
  @IsUUID('all')
  readonly queueId?: string | null;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uuid' })
  @ValidateIf(isSet)
  @IsUUID('all')
  readonly contactId?: string | null;

  @ApiPropertyOptional({ type: [String] })
  @ValidateIf(isPresent)
  @IsArray()
  @ArrayMaxSize(MAX_TAGS)
  @IsString({ each: true })
  @MaxLength(MAX_TAG_LENGTH, { each: true })
  readonly tags?: string[];

  @ApiPropertyOptional({ nullable: true, type: String })
  @ValidateIf(isSet)
  @IsISO8601({ strict: true })
  readonly dueAt?: string | null;
}

export class CreateTicketCommentDto {
  @ApiProperty({ maxLength: MAX_COMMENT_LENGTH })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_COMMENT_LENGTH)
  readonly body: string;

  @ApiPropertyOptional({ default: false, description: 'An internal note (for the team only)' })
  @ValidateIf(isPresent)
  @IsBoolean()
  readonly internal?: boolean;
}

/** The filters of the list, the board and the stats. */
export class TicketFiltersQuery {
  @ApiPropertyOptional({
    description: 'One status or a comma-separated list, case-insensitive (e.g. `open,waiting`)',
    example: 'OPEN',
  })
  @IsOptional()
  @Transform(upperList)
  @IsArray()
  @ArrayMaxSize(TICKET_STATUSES.length)
  @IsIn(TICKET_STATUSES, { each: true })
  readonly status?: TicketStatus[];

  @ApiPropertyOptional({ description: 'One priority or a comma-separated list, case-insensitive', example: 'HIGH' })
  @IsOptional()
  @Transform(upperList)
  @IsArray()
  @ArrayMaxSize(PRIORITIES.length)
  @IsIn(PRIORITIES, { each: true })
  readonly priority?: Priority[];

  @ApiPropertyOptional({ description: 'Case-insensitive text in the subject, the description or the key' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(200)
  readonly search?: string;

  @ApiPropertyOptional({ description: 'A user id, `me` or `unassigned`' })
  @IsOptional()
  @Transform(lower)
  @IsString()
  @Matches(ASSIGNEE_FILTER, { message: 'must be a UUID, me or unassigned' })
  readonly assigneeId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all')
  readonly queueId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all')
  readonly contactId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all')
  readonly conversationId?: string;

  @ApiPropertyOptional({ description: 'Tickets carrying this tag (case-insensitive)' })
  @IsOptional()
  @Transform(lower)
  @IsString()
  @MaxLength(MAX_TAG_LENGTH)
  readonly tag?: string;

  @ApiPropertyOptional({ enum: TICKET_SOURCES, description: 'Case-insensitive' })
  @IsOptional()
  @Transform(upper)
  @IsIn(TICKET_SOURCES)
  readonly source?: TicketSource;

  @ApiPropertyOptional({ description: 'Created at or after (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly from?: string;

  @ApiPropertyOptional({ description: 'Created before (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly to?: string;
}

/** The filters plus the shared keyset paging parameters (`limit`, `cursor`). */
export class ListTicketsQuery extends IntersectionType(TicketFiltersQuery, CursorPaginationQuery) {}

export class TicketResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ example: 'TCK-1042' }) readonly key: string;
  @ApiProperty() readonly subject: string;
  @ApiProperty({ nullable: true, type: String }) readonly description: string | null;
  @ApiProperty({ enum: TICKET_STATUSES }) readonly status: TicketStatus;
  @ApiProperty({ enum: PRIORITIES }) readonly priority: Priority;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) readonly assigneeId: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) readonly queueId: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) readonly contactId: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) readonly conversationId: string | null;
  @ApiProperty({ type: [String] }) readonly tags: string[];
  @ApiProperty({ nullable: true, type: String }) readonly dueAt: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly resolvedAt: string | null;
  @ApiProperty({ enum: TICKET_SOURCES }) readonly source: TicketSource;
  @ApiProperty() readonly createdAt: string;
  @ApiProperty() readonly updatedAt: string;
}

export class TicketCommentResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'Null when written with an API token' })
  readonly authorId: string | null;
  @ApiProperty() readonly body: string;
  @ApiProperty() readonly internal: boolean;
  @ApiProperty() readonly createdAt: string;
}

export class TicketDetailResponse extends TicketResponse {
  @ApiProperty({ type: [TicketCommentResponse], description: 'Oldest first (at most 500)' })
  readonly comments: TicketCommentResponse[];
}

export class TicketPageResponse {
  @ApiProperty({ type: [TicketResponse] }) readonly data: TicketResponse[];
  @ApiProperty({ nullable: true, type: String }) readonly nextCursor: string | null;
}

export class TicketBoardColumn {
  @ApiProperty({ enum: TICKET_STATUSES }) readonly status: TicketStatus;
  @ApiProperty({ description: 'Tickets in this status matching the filters' }) readonly count: number;
  @ApiProperty({ type: [TicketResponse], description: 'The newest 50' }) readonly tickets: TicketResponse[];
}

export class TicketBoardResponse {
  @ApiProperty({ type: [TicketBoardColumn], description: 'OPEN, IN_PROGRESS, WAITING, RESOLVED, CLOSED' })
  readonly columns: TicketBoardColumn[];
}

export class TicketStatsResponse {
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, example: { OPEN: 3, CLOSED: 1 } })
  readonly byStatus: Record<TicketStatus, number>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'number' }, example: { HIGH: 2 } })
  readonly byPriority: Record<Priority, number>;
  @ApiProperty({ description: 'Past dueAt and neither RESOLVED nor CLOSED' }) readonly overdue: number;
  @ApiProperty({ description: 'Created since midnight in the workspace timezone' }) readonly createdToday: number;
  @ApiProperty({ description: 'Resolved since midnight in the workspace timezone' }) readonly resolvedToday: number;
  @ApiProperty({ nullable: true, type: Number, description: 'Mean of resolvedAt − createdAt over resolved tickets' })
  readonly averageResolutionSeconds: number | null;
}
