import { ApiPropertyOptional, IntersectionType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
} from 'class-validator';
import { MAX_TAG_LENGTH, PRIORITIES, type Priority } from 'src/core/domain/vocabulary';
import { CursorPaginationQuery } from 'src/core/http/pagination';
import { CONVERSATION_STATUSES, type ConversationStatus } from '../conversation.entity';
import { ASSIGNEE_FILTER, lower, trim, upperList } from 'src/core/http/transforms';
import { MAX_SEARCH_LENGTH } from './inbox-limits.constant';

/** The filters of `GET /conversations` (and, minus contactId/from/to/viewId, of a saved view). */
export class ConversationFiltersQuery {
  @ApiPropertyOptional({
    description: 'One status or a comma-separated list, case-insensitive (e.g. `open,on_hold`)',
    example: 'OPEN',
  })
  @IsOptional()
  @Transform(upperList)
  @IsArray()
  @ArrayMaxSize(CONVERSATION_STATUSES.length)
  @IsIn(CONVERSATION_STATUSES, { each: true })
  readonly status?: ConversationStatus[];

  @ApiPropertyOptional({ description: 'One priority or a comma-separated list, case-insensitive', example: 'HIGH' })
  @IsOptional()
  @Transform(upperList)
  @IsArray()
  @ArrayMaxSize(PRIORITIES.length)
  @IsIn(PRIORITIES, { each: true })
  readonly priority?: Priority[];

  @ApiPropertyOptional({
    description: "Case-insensitive text in the contact's name or email, the subject, or any message's text",
  })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(MAX_SEARCH_LENGTH)
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
  readonly channelId?: string;

  @ApiPropertyOptional({ description: 'Conversations carrying this tag (case-insensitive)' })
  @IsOptional()
  @Transform(lower)
  @IsString()
  @MaxLength(MAX_TAG_LENGTH)
  readonly tag?: string;
}

export class ListConversationsQuery extends IntersectionType(ConversationFiltersQuery, CursorPaginationQuery) {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all')
  readonly contactId?: string;

  @ApiPropertyOptional({ description: 'Created at or after (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly from?: string;

  @ApiPropertyOptional({ description: 'Created before (ISO 8601)' })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly to?: string;

  @ApiPropertyOptional({
    description: "A saved view's id: its filters apply; filters given here override the view's",
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  readonly viewId?: string;
}
