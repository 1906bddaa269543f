import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayUnique, IsArray, IsDateString, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { SCOPES } from 'src/core/auth/permissions';
import type { ApiTokenEntity } from '../api-token.entity';

export class CreateApiTokenDto {
  @ApiProperty({ example: 'Shop catalogue feed' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly name: string;

  @ApiPropertyOptional({ enum: SCOPES, isArray: true, default: [] })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(SCOPES, { each: true, message: `each value must be one of: ${SCOPES.join(', ')}` })
  readonly scopes?: string[];

  @ApiPropertyOptional({ example: '2027-01-01T00:00:00.000Z' })
  @IsOptional()
  @IsDateString({ strict: true })
  readonly expiresAt?: string;
}

export class ApiTokenResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly name: string;
  @ApiProperty({ description: 'First 8 characters of the token' }) readonly prefix: string;
  @ApiProperty({ type: [String] }) readonly scopes: string[];
  @ApiProperty() readonly createdAt: string;
  @ApiProperty({ nullable: true, type: String }) readonly lastUsedAt: string | null;
  @ApiProperty({ nullable: true, type: String }) readonly expiresAt: string | null;
}

export class CreatedApiTokenResponse extends ApiTokenResponse {
  @ApiProperty({ description: 'The token itself: shown only in this response' }) readonly token: string;
}

export function toApiTokenResponse(t: ApiTokenEntity): ApiTokenResponse {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    scopes: t.scopes,
    createdAt: t.createdAt.toISOString(),
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    expiresAt: t.expiresAt?.toISOString() ?? null,
  };
}
