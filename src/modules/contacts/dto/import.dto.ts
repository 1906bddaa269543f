import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import type { ImportTarget } from '../csv-import.util';
import { toBoolean } from 'src/core/http/transforms';

/** The text fields of the multipart form (the file itself is the `file` part). */
export class ImportContactsDto {
  @ApiPropertyOptional({
    description:
      'JSON object overriding the column mapping: {"<header>": "name"|"email"|"phone"|"company"|"tags"|"avatarUrl"|"<custom field key>"|null}',
    example: '{"E-mail 2": "email", "Notes": null}',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100_000)
  readonly mapping?: string;

  @ApiPropertyOptional({ description: 'true: report what would happen, write nothing', default: false })
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean()
  readonly dryRun?: boolean;
}

export class ImportRowError {
  @ApiProperty({ description: 'The row a spreadsheet shows (header = 1, first contact = 2)' }) readonly row: number;
  @ApiProperty() readonly message: string;
}

export class ImportContactsResponse {
  @ApiProperty() readonly created: number;
  @ApiProperty() readonly updated: number;
  @ApiProperty({ description: 'Rows without a name, email or phone' }) readonly skipped: number;
  @ApiProperty({ type: [ImportRowError], description: 'Rows not saved and why (the first 1,000)' })
  readonly errors: ImportRowError[];
  @ApiProperty({ description: 'Rows with errors in total' }) readonly errorCount: number;
  @ApiProperty() readonly dryRun: boolean;
  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'string', nullable: true },
    description: 'How each header was mapped (null = ignored)',
  })
  readonly mapping: Record<string, ImportTarget | null>;
}
