import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsString } from 'class-validator';
import { CursorPaginationQuery } from 'src/core/http/pagination';
import { MAX_MERGE_DUPLICATES } from '../contacts.constants';
import { ContactResponse } from './contact.dto';

export class MergeContactsDto {
  @ApiProperty({ format: 'uuid', description: 'The contact that stays' })
  @IsString()
  readonly primaryId: string;

  @ApiProperty({
    type: [String],
    description: `The contacts merged into the primary and removed (1–${MAX_MERGE_DUPLICATES})`,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_MERGE_DUPLICATES)
  @ArrayUnique()
  @IsString({ each: true })
  readonly duplicateIds: string[];
}

export const DUPLICATE_REASONS = ['EMAIL', 'PHONE', 'NAME'] as const;
export type DuplicateReason = (typeof DUPLICATE_REASONS)[number];

export class ListDuplicatesQuery extends CursorPaginationQuery {}

export class DuplicateGroupResponse {
  @ApiProperty({ enum: DUPLICATE_REASONS }) readonly reason: DuplicateReason;
  @ApiProperty({ description: 'The shared email (lower-cased), phone digits or exact name' }) readonly value: string;
  @ApiProperty({ description: 'How many contacts share it' }) readonly count: number;
  @ApiProperty({ type: [ContactResponse], description: 'The contacts, oldest first (at most 20)' })
  readonly contacts: ContactResponse[];
}

export class DuplicatePageResponse {
  @ApiProperty({ type: [DuplicateGroupResponse] }) readonly data: DuplicateGroupResponse[];
  @ApiProperty({ nullable: true, type: String }) readonly nextCursor: string | null;
}
