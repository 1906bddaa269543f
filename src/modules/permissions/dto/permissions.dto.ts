import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayUnique, IsArray, IsIn, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { PERMISSION_KEYS } from 'src/core/auth/permissions';
import { ROLES } from 'src/core/auth/roles';

const keyMessage = { each: true, message: 'each value must be a known permission key (see GET /permissions)' };

export class MatrixDto {
  @ApiPropertyOptional({ type: [String], description: 'ADMIN always holds every permission; sending fewer is refused' })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(PERMISSION_KEYS, keyMessage)
  readonly ADMIN?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(PERMISSION_KEYS, keyMessage)
  readonly SUPERVISOR?: string[];

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayUnique()
  @IsIn(PERMISSION_KEYS, keyMessage)
  readonly AGENT?: string[];
}

export class UpdatePermissionsDto {
  @ApiProperty({ type: MatrixDto })
  @IsObject()
  @ValidateNested()
  @Type(() => MatrixDto)
  readonly matrix: MatrixDto;
}

export class PermissionDescription {
  @ApiProperty() readonly key: string;
  @ApiProperty() readonly description: string;
}

export class PermissionsResponse {
  @ApiProperty({ enum: ROLES, isArray: true }) readonly roles: string[];
  @ApiProperty({ type: [PermissionDescription] }) readonly permissions: PermissionDescription[];
  @ApiProperty({ example: { ADMIN: ['...'], SUPERVISOR: ['...'], AGENT: ['...'] } })
  readonly matrix: Record<string, string[]>;
}

export class MyPermissionsResponse {
  @ApiProperty({ enum: ROLES }) readonly role: string;
  @ApiProperty({ type: [String] }) readonly permissions: string[];
  @ApiProperty({ enum: ['user', 'api_token'] }) readonly authenticatedBy: 'user' | 'api_token';
}
