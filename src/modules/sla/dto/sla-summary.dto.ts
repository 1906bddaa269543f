import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsISO8601, IsOptional } from 'class-validator';

export class SlaSummaryQuery {
  @ApiPropertyOptional({ description: 'Conversations created at or after (ISO 8601); default: `to` minus 30 days' })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly from?: string;

  @ApiPropertyOptional({ description: 'Conversations created before (ISO 8601); default: now' })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly to?: string;
}

export class SlaTargetFigures {
  @ApiProperty({ description: 'Reached by the due time' }) readonly met: number;
  @ApiProperty({ description: 'Reached late, or not reached and past due' }) readonly breached: number;
  @ApiProperty({ description: 'Not reached and not yet due' }) readonly pending: number;
  @ApiProperty({ nullable: true, type: Number, description: 'met / (met + breached), 0–1; null when both are 0' })
  readonly complianceRate: number | null;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'Mean seconds from the conversation’s creation to the first reply (resp. resolution)',
  })
  readonly averageSeconds: number | null;
}

export class SlaPolicyFigures {
  @ApiProperty({ format: 'uuid' }) readonly policyId: string;
  @ApiProperty({ description: 'Current name (the name when applied, for a deleted policy)' }) readonly name: string;
  @ApiProperty() readonly conversations: number;
  @ApiProperty({ type: SlaTargetFigures }) readonly firstResponse: SlaTargetFigures;
  @ApiProperty({ type: SlaTargetFigures }) readonly resolution: SlaTargetFigures;
}

export class SlaSummaryResponse {
  @ApiProperty() readonly from: string;
  @ApiProperty() readonly to: string;
  @ApiProperty({ description: 'Conversations created in the window with a policy applied' })
  readonly conversations: number;
  @ApiProperty({ type: SlaTargetFigures }) readonly firstResponse: SlaTargetFigures;
  @ApiProperty({ type: SlaTargetFigures }) readonly resolution: SlaTargetFigures;
  @ApiProperty({ type: [SlaPolicyFigures] }) readonly byPolicy: SlaPolicyFigures[];
}
