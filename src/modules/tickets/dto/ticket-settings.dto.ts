import { PRIORITIES, type Priority } from 'src/core/domain/vocabulary';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsString, Matches, ValidateIf } from 'class-validator';

const upper = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim().toUpperCase() : value;
const isPresent = (_: object, value: unknown): boolean => value !== undefined;

/** Only the fields sent change. */
export class UpdateTicketSettingsDto {
  @ApiPropertyOptional({ description: 'Create a ticket for every new conversation from the inbound pipeline' })
  @ValidateIf(isPresent)
  @IsBoolean()
  readonly autoCreateFromConversation?: boolean;

  @ApiPropertyOptional({
    description: 'Upper-cased; a letter then up to 9 letters or digits. New tickets only: keys never change.',
    example: 'TCK',
  })
  @ValidateIf(isPresent)
  @Transform(upper)
  @IsString()
  @Matches(/^[A-Z][A-Z0-9]{0,9}$/, { message: 'must be a letter followed by up to 9 letters or digits' })
  readonly keyPrefix?: string;

  @ApiPropertyOptional({ enum: PRIORITIES, description: 'Case-insensitive' })
  @ValidateIf(isPresent)
  @Transform(upper)
  @IsIn(PRIORITIES)
  readonly defaultPriority?: Priority;

  @ApiPropertyOptional({ description: 'Resolve a conversation’s automatic ticket when the conversation is resolved' })
  @ValidateIf(isPresent)
  @IsBoolean()
  readonly resolveWithConversation?: boolean;
}

export class TicketSettingsResponse {
  @ApiProperty({ default: true }) readonly autoCreateFromConversation: boolean;
  @ApiProperty({ default: 'TCK' }) readonly keyPrefix: string;
  @ApiProperty({ enum: PRIORITIES, default: 'MEDIUM' }) readonly defaultPriority: Priority;
  @ApiProperty({ default: false }) readonly resolveWithConversation: boolean;
}
