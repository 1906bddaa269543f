import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';

export class CreateCsatDto {
  @ApiProperty({ format: 'uuid', description: 'The rated conversation (of the caller’s workspace)' })
  @IsUUID('all')
  readonly conversationId: string;

  @ApiProperty({ minimum: 1, maximum: 5, description: '1 (very unhappy) to 5 (very happy)' })
  @IsInt()
  @Min(1)
  @Max(5)
  readonly score: number;

  @ApiPropertyOptional({ maxLength: 2000, nullable: true })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @MaxLength(2000)
  readonly comment?: string | null;
}

export class CsatResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ format: 'uuid' }) readonly conversationId: string;
  @ApiProperty({ minimum: 1, maximum: 5 }) readonly score: number;
  @ApiProperty({ nullable: true, type: String }) readonly comment: string | null;
  @ApiProperty({ description: 'When this (latest) rating was given' }) readonly createdAt: string;
}
