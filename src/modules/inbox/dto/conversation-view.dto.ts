import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsNotEmpty, IsObject, IsString, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { PRIORITIES, type Priority } from 'src/core/domain/vocabulary';
import { CONVERSATION_STATUSES, type ConversationStatus } from '../conversation.entity';
import { isPresent, trim } from 'src/core/http/transforms';
import { ConversationFiltersQuery } from './list-conversations.query';

export class ConversationViewFiltersResponse {
  @ApiPropertyOptional({ enum: CONVERSATION_STATUSES, isArray: true }) readonly status?: ConversationStatus[];
  @ApiPropertyOptional({ enum: PRIORITIES, isArray: true }) readonly priority?: Priority[];
  @ApiPropertyOptional({ format: 'uuid' }) readonly queueId?: string;
  @ApiPropertyOptional({ description: 'A user id, `me` or `unassigned`' }) readonly assigneeId?: string;
  @ApiPropertyOptional({ format: 'uuid' }) readonly channelId?: string;
  @ApiPropertyOptional() readonly tag?: string;
  @ApiPropertyOptional() readonly search?: string;
}

/** `POST /conversations/views`. Filters are those of `GET /conversations` (status/priority: a list or a comma-separated string). */
export class CreateConversationViewDto {
  @ApiProperty({ maxLength: 100 })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  readonly name: string;

  @ApiProperty({ type: ConversationFiltersQuery })
  @IsObject()
  @ValidateNested()
  @Type(() => ConversationFiltersQuery)
  readonly filters: ConversationFiltersQuery;

  @ApiPropertyOptional({
    default: false,
    description: 'Shared with the workspace (needs conversations.views); otherwise visible to you only',
  })
  @ValidateIf(isPresent)
  @IsBoolean()
  readonly shared?: boolean;
}

export class ConversationViewResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly name: string;
  @ApiProperty({ type: ConversationViewFiltersResponse }) readonly filters: ConversationViewFiltersResponse;
  @ApiProperty() readonly shared: boolean;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'Null when created with an API token' })
  readonly createdBy: string | null;
  @ApiProperty() readonly createdAt: string;
}

export class ConversationViewPageResponse {
  @ApiProperty({ type: [ConversationViewResponse] }) readonly data: ConversationViewResponse[];
  @ApiProperty({ nullable: true, type: String }) readonly nextCursor: string | null;
}
