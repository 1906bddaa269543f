import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  Equals,
  IsArray,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PRESENCE_STATUSES, type PresenceStatus } from '../agent-status.entity';
import { QUEUE_STRATEGIES, type QueueEntity, type QueueStrategy } from '../queue.entity';

const upper = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.toUpperCase() : value);

export class CreateQueueDto {
  @ApiProperty({ example: 'Billing' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly name: string;

  @ApiPropertyOptional({ enum: QUEUE_STRATEGIES, default: 'ROUND_ROBIN' })
  @IsOptional()
  @Transform(upper)
  @IsIn(QUEUE_STRATEGIES)
  readonly strategy?: QueueStrategy;

  @ApiPropertyOptional({ type: [String], description: 'User ids of workspace members', default: [] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  readonly memberIds?: string[];
}

export class UpdateQueueDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(120)
  readonly name?: string;

  @ApiPropertyOptional({ enum: QUEUE_STRATEGIES })
  @IsOptional()
  @Transform(upper)
  @IsIn(QUEUE_STRATEGIES)
  readonly strategy?: QueueStrategy;

  @ApiPropertyOptional({ type: [String], description: 'Replaces the members' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  readonly memberIds?: string[];

  @ApiPropertyOptional({ description: 'true makes this the default queue (the previous default stops being it)' })
  @IsOptional()
  @Equals(true, { message: 'can only be set to true (make another queue the default instead)' })
  readonly isDefault?: boolean;
}

export class QueueResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly name: string;
  @ApiProperty() readonly isDefault: boolean;
  @ApiProperty({ enum: QUEUE_STRATEGIES }) readonly strategy: QueueStrategy;
  @ApiProperty({ type: [String] }) readonly memberIds: string[];
  @ApiProperty() readonly createdAt: string;
}

export function toQueueResponse(q: QueueEntity, memberIds: string[]): QueueResponse {
  return {
    id: q.id,
    name: q.name,
    isDefault: q.isDefault,
    strategy: q.strategy,
    memberIds,
    createdAt: q.createdAt.toISOString(),
  };
}

export class AgentCapacityDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID('all')
  readonly userId: string;

  @ApiProperty({ minimum: 0, maximum: 1000, example: 5 })
  @IsInt()
  @Min(0)
  @Max(1000)
  readonly maxConversations: number;
}

export class UpdateCapacityDto {
  @ApiProperty({ type: [AgentCapacityDto] })
  @IsArray()
  @ArrayMaxSize(1000)
  @ValidateNested({ each: true })
  @Type(() => AgentCapacityDto)
  readonly agents: AgentCapacityDto[];
}

export class AgentCapacityResponse {
  @ApiProperty({ format: 'uuid' }) readonly userId: string;
  @ApiProperty() readonly name: string;
  @ApiProperty({ example: 5 }) readonly maxConversations: number;
  @ApiProperty({ description: 'Assigned conversations not resolved (OPEN or ON_HOLD)' })
  readonly openConversations: number;
  @ApiProperty({ enum: PRESENCE_STATUSES }) readonly presence: PresenceStatus;
  @ApiProperty({ description: 'ONLINE and below capacity: auto-assignment can pick them' }) readonly available: boolean;
}

export class CapacityResponse {
  @ApiProperty({ type: [AgentCapacityResponse] }) readonly data: AgentCapacityResponse[];
}

export class SetPresenceDto {
  @ApiProperty({ enum: PRESENCE_STATUSES })
  @Transform(upper)
  @IsIn(PRESENCE_STATUSES)
  readonly status: PresenceStatus;

  @ApiPropertyOptional({ format: 'uuid', description: 'API tokens only: whose presence (users set their own)' })
  @IsOptional()
  @IsUUID('all')
  readonly userId?: string;
}

export class PresenceResponse {
  @ApiProperty({ format: 'uuid' }) readonly userId: string;
  @ApiProperty({ enum: PRESENCE_STATUSES }) readonly status: PresenceStatus;
  @ApiProperty({ description: 'Since when this status holds' }) readonly since: string;
  @ApiProperty({ description: 'Waiting conversations assigned because of this change' }) readonly assigned: number;
}
