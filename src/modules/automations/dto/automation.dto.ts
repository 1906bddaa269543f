import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { CursorPaginationQuery } from 'src/core/http/pagination';
import { AUTOMATION_KINDS, type AutomationKind, RUN_STATUSES, type RunStatus } from '../automation.types';

const upper = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.toUpperCase() : value);
const bool = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

const TRIGGER_DOC =
  'RULE: an event name (`message.received`); FLOW: `{type: "KEYWORD", keywords[], match}`, `{type: "POSTBACK", payload}` or `{type: "AD_REFERRAL", adIds[]}`';

export class CreateAutomationDto {
  @ApiProperty({ example: 'Tag refunds' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  readonly name: string;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  readonly active?: boolean;

  @ApiProperty({ enum: AUTOMATION_KINDS })
  @Transform(upper)
  @IsIn(AUTOMATION_KINDS)
  readonly kind: AutomationKind;

  @ApiProperty({ description: TRIGGER_DOC, oneOf: [{ type: 'string' }, { type: 'object' }] })
  @IsDefined()
  readonly trigger: unknown;

  @ApiPropertyOptional({
    description: '`{all: [{field, operator, value}], any: [...]}`; empty lists constrain nothing',
  })
  @IsOptional()
  @IsObject()
  readonly conditions?: Record<string, unknown>;

  @ApiProperty({
    description: 'Actions (RULE) or steps (FLOW): `[{type, params}]`, at most 50',
    type: 'array',
    items: { type: 'object' },
  })
  @IsArray()
  readonly actions: unknown[];

  @ApiPropertyOptional({ description: 'Evaluation order (lower first)', default: 0 })
  @IsOptional()
  @IsInt()
  @Min(-1_000_000)
  @Max(1_000_000)
  readonly order?: number;
}

/** A full replacement of the definition (PUT); `active` and `order` keep their values when omitted. */
export class UpdateAutomationDto extends CreateAutomationDto {}

export class ListAutomationsQuery extends CursorPaginationQuery {
  @ApiPropertyOptional({ enum: AUTOMATION_KINDS })
  @IsOptional()
  @Transform(upper)
  @IsIn(AUTOMATION_KINDS)
  readonly kind?: AutomationKind;

  @ApiPropertyOptional({ type: Boolean })
  @IsOptional()
  @Transform(bool)
  @IsBoolean()
  readonly active?: boolean;
}

export class ListRunsQuery extends CursorPaginationQuery {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID('all')
  readonly automationId?: string;

  @ApiPropertyOptional({ description: 'Runs at or after (ISO 8601)' })
  @IsOptional()
  @IsISO8601()
  readonly from?: string;

  @ApiPropertyOptional({ description: 'Runs before (ISO 8601)' })
  @IsOptional()
  @IsISO8601()
  readonly to?: string;

  @ApiPropertyOptional({ enum: RUN_STATUSES })
  @IsOptional()
  @Transform(upper)
  @IsIn(RUN_STATUSES)
  readonly status?: RunStatus;
}

export class TestAutomationDto {
  @ApiProperty({
    description:
      '`{message?, contact?, conversation?, ticket?}`: field values as the events carry them (e.g. `{message: {text: "refund"}, contact: {name: "Ada", customFields: {plan: "gold"}}}`); FLOWs read `message.text`, `message.postbackPayload`, `referral.adId`',
  })
  @IsObject()
  readonly sample: Record<string, unknown>;
}

export class AutomationResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly name: string;
  @ApiProperty() readonly active: boolean;
  @ApiProperty({ enum: AUTOMATION_KINDS }) readonly kind: AutomationKind;
  @ApiProperty({ description: TRIGGER_DOC, oneOf: [{ type: 'string' }, { type: 'object' }] }) readonly trigger: unknown;
  @ApiProperty({ type: 'object', additionalProperties: true }) readonly conditions: Record<string, unknown>;
  @ApiProperty({ type: 'array', items: { type: 'object' } }) readonly actions: unknown[];
  @ApiProperty() readonly order: number;
  @ApiProperty() readonly runCount: number;
  @ApiProperty({ nullable: true, type: String }) readonly lastRunAt: string | null;
  @ApiProperty() readonly createdAt: string;
  @ApiProperty() readonly updatedAt: string;
}

export class AutomationPageResponse {
  @ApiProperty({ type: [AutomationResponse] }) readonly data: AutomationResponse[];
  @ApiProperty({ nullable: true, type: String }) readonly nextCursor: string | null;
}

export class RunActionResponse {
  @ApiProperty() readonly type: string;
  @ApiProperty({ enum: ['SUCCESS', 'FAILED'] }) readonly status: string;
  @ApiProperty({ nullable: true, type: String }) readonly error: string | null;
}

export class AutomationRunResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ format: 'uuid' }) readonly automationId: string;
  @ApiProperty({ description: 'The event name, or the FLOW trigger type' }) readonly trigger: string;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) readonly conversationId: string | null;
  @ApiProperty() readonly matched: boolean;
  @ApiProperty({ enum: RUN_STATUSES }) readonly status: RunStatus;
  @ApiProperty({ type: [RunActionResponse] }) readonly actions: RunActionResponse[];
  @ApiProperty() readonly durationMs: number;
  @ApiProperty() readonly createdAt: string;
}

export class AutomationRunPageResponse {
  @ApiProperty({ type: [AutomationRunResponse] }) readonly data: AutomationRunResponse[];
  @ApiProperty({ nullable: true, type: String }) readonly nextCursor: string | null;
}

/** A condition's value or the sample's actual value: any JSON value (or null). */
const JSON_VALUE: ApiPropertyOptions = {
  description: 'Any JSON value, or null',
  oneOf: [
    { type: 'string' },
    { type: 'number' },
    { type: 'boolean' },
    { type: 'array', items: {} },
    { type: 'object', nullable: true },
  ],
};

export class ConditionOutcomeResponse {
  @ApiProperty() readonly field: string;
  @ApiProperty() readonly operator: string;
  @ApiProperty(JSON_VALUE) readonly value: unknown;
  @ApiProperty(JSON_VALUE) readonly actual: unknown;
  @ApiProperty() readonly passed: boolean;
}

export class PlannedActionResponse {
  @ApiProperty() readonly type: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) readonly params: Record<string, unknown>;
}

export class AutomationTestResponse {
  @ApiProperty() readonly matched: boolean;
  @ApiProperty({ type: [ConditionOutcomeResponse] }) readonly conditions: ConditionOutcomeResponse[];
  @ApiProperty({ type: [PlannedActionResponse], description: 'What would run (empty when not matched)' })
  readonly actions: PlannedActionResponse[];
}

export class AutomationsMetaResponse {
  @ApiProperty({ type: [String] }) readonly kinds: string[];
  @ApiProperty({ type: 'object', additionalProperties: true }) readonly triggers: Record<string, unknown>;
  @ApiProperty({ type: 'array', items: { type: 'object' } }) readonly fields: unknown[];
  @ApiProperty({ type: [String] }) readonly operators: readonly string[];
  @ApiProperty({ type: 'array', items: { type: 'object' } }) readonly actions: unknown[];
  @ApiProperty({ type: 'array', items: { type: 'object' } }) readonly steps: unknown[];
  @ApiProperty({ type: [String] }) readonly placeholders: string[];
  @ApiProperty({ type: 'object', additionalProperties: true }) readonly limits: Record<string, number>;
}
