import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
  Validate,
  type ValidatorConstraintInterface,
  ValidatorConstraint,
} from 'class-validator';
import { WORKSPACE_PLANS, type WorkspaceEntity, type WorkspacePlan } from '../workspace.entity';

@ValidatorConstraint({ name: 'ianaTimezone' })
export class IanaTimezone implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (typeof value !== 'string') return false;
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: value });
      return true;
    } catch {
      return false;
    }
  }

  defaultMessage(): string {
    return 'must be an IANA time zone such as Europe/Berlin';
  }
}

export class CreateWorkspaceDto {
  @ApiProperty({ example: 'Acme Support' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly name: string;
}

export class UpdateWorkspaceDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly name?: string;

  @ApiPropertyOptional({ example: 'Europe/Berlin' })
  @IsOptional()
  @Validate(IanaTimezone)
  readonly timezone?: string;
}

export class WorkspaceResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly name: string;
  @ApiProperty({ enum: WORKSPACE_PLANS }) readonly plan: WorkspacePlan;
  @ApiProperty() readonly timezone: string;
  @ApiProperty() readonly createdAt: string;
}

export function toWorkspaceResponse(w: WorkspaceEntity): WorkspaceResponse {
  return { id: w.id, name: w.name, plan: w.plan, timezone: w.timezone, createdAt: w.createdAt.toISOString() };
}
