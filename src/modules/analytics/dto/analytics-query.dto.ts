import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsISO8601, IsOptional, IsUUID } from 'class-validator';

export const INTERVALS = ['HOUR', 'DAY', 'WEEK'] as const;
export type AnalyticsInterval = (typeof INTERVALS)[number];

const upper = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim().toUpperCase() : value;

/** `from`, `to`, `interval`, `channelId`, `queueId` of every analytics endpoint. */
export class AnalyticsQuery {
  @ApiPropertyOptional({ description: 'Start of the window, inclusive (ISO 8601); default: `to` minus 30 days' })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly from?: string;

  @ApiPropertyOptional({ description: 'End of the window, exclusive (ISO 8601); default: now' })
  @IsOptional()
  @IsISO8601({ strict: true })
  readonly to?: string;

  @ApiPropertyOptional({ enum: INTERVALS, default: 'DAY', description: 'Bucket size, in the workspace timezone' })
  @IsOptional()
  @Transform(upper)
  @IsIn(INTERVALS)
  readonly interval?: AnalyticsInterval;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'Only conversations (and their messages, tickets) of this channel',
  })
  @IsOptional()
  @IsUUID('all')
  readonly channelId?: string;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'Only conversations (and their messages, tickets) of this queue',
  })
  @IsOptional()
  @IsUUID('all')
  readonly queueId?: string;
}

/** The validated window every query runs over. */
export interface AnalyticsWindow {
  readonly from: Date;
  readonly to: Date;
  readonly interval: AnalyticsInterval;
  readonly channelId: string | null;
  readonly queueId: string | null;
}

class ConversationFigures {
  @ApiProperty({ description: 'Open at some time in the window: created before `to`, not resolved before `from`' })
  readonly total: number;
  @ApiProperty({ description: 'Created in the window' }) readonly new: number;
  @ApiProperty({ description: 'Not resolved at `to` (OPEN or ON_HOLD then)' }) readonly open: number;
  @ApiProperty({ description: 'Resolved in the window' }) readonly resolved: number;
}
class MessageFigures {
  @ApiProperty() readonly inbound: number;
  @ApiProperty() readonly outbound: number;
}
class FirstResponseFigures {
  @ApiProperty({ nullable: true, type: Number }) readonly averageSeconds: number | null;
  @ApiProperty({ nullable: true, type: Number }) readonly medianSeconds: number | null;
}
class ResolutionFigures {
  @ApiProperty({ nullable: true, type: Number }) readonly averageSeconds: number | null;
}
class CsatFigures {
  @ApiProperty({ nullable: true, type: Number, description: 'Mean score 1–5' }) readonly average: number | null;
  @ApiProperty() readonly responses: number;
}
class SlaFigures {
  @ApiProperty({ nullable: true, type: Number, description: '0–1' }) readonly complianceRate: number | null;
}
class TicketFigures {
  @ApiProperty() readonly created: number;
  @ApiProperty() readonly resolved: number;
  @ApiProperty() readonly open: number;
}

export class AnalyticsSummaryResponse {
  @ApiProperty() readonly from: string;
  @ApiProperty() readonly to: string;
  @ApiProperty({ type: ConversationFigures }) readonly conversations: ConversationFigures;
  @ApiProperty({ type: MessageFigures }) readonly messages: MessageFigures;
  @ApiProperty({ type: FirstResponseFigures }) readonly firstResponse: FirstResponseFigures;
  @ApiProperty({ type: ResolutionFigures }) readonly resolution: ResolutionFigures;
  @ApiProperty({ type: CsatFigures }) readonly csat: CsatFigures;
  @ApiProperty({ type: SlaFigures }) readonly sla: SlaFigures;
  @ApiProperty({ type: TicketFigures }) readonly tickets: TicketFigures;
}

class InboxBucket {
  @ApiProperty({ description: 'Start of the bucket (ISO 8601 UTC; aligned in the workspace timezone)' })
  readonly bucket: string;
  @ApiProperty() readonly conversations: number;
  @ApiProperty() readonly inbound: number;
  @ApiProperty() readonly outbound: number;
  @ApiProperty() readonly resolved: number;
}
class InboxChannel {
  @ApiProperty() readonly channelType: string;
  @ApiProperty() readonly conversations: number;
  @ApiProperty() readonly inbound: number;
}
export class AnalyticsInboxResponse {
  @ApiProperty() readonly from: string;
  @ApiProperty() readonly to: string;
  @ApiProperty({ enum: INTERVALS }) readonly interval: AnalyticsInterval;
  @ApiProperty({ type: [InboxBucket] }) readonly series: InboxBucket[];
  @ApiProperty({ type: [InboxChannel] }) readonly byChannel: InboxChannel[];
}

class TicketBucket {
  @ApiProperty() readonly bucket: string;
  @ApiProperty() readonly created: number;
  @ApiProperty() readonly resolved: number;
}
export class AnalyticsTicketsResponse {
  @ApiProperty() readonly from: string;
  @ApiProperty() readonly to: string;
  @ApiProperty({ enum: INTERVALS }) readonly interval: AnalyticsInterval;
  @ApiProperty({ type: [TicketBucket] }) readonly series: TicketBucket[];
  @ApiProperty({ description: 'Tickets created in the window by their current status (every status, 0 included)' })
  readonly byStatus: Record<string, number>;
  @ApiProperty({ description: 'Tickets created in the window by priority (every priority, 0 included)' })
  readonly byPriority: Record<string, number>;
}

class AgentFigures {
  @ApiProperty({ format: 'uuid' }) readonly userId: string;
  @ApiProperty() readonly name: string;
  @ApiProperty({ enum: ['ONLINE', 'AWAY', 'OFFLINE'], description: 'Now' }) readonly presence: string;
  @ApiProperty({ description: 'Seconds ONLINE within the window (up to now)' }) readonly onlineSeconds: number;
  @ApiProperty({ description: 'Conversations assigned to them in the window (still theirs)' })
  readonly assigned: number;
  @ApiProperty({ description: 'Their conversations resolved in the window' }) readonly resolved: number;
  @ApiProperty({ nullable: true, type: Number }) readonly averageFirstResponseSeconds: number | null;
  @ApiProperty({ description: 'OPEN or ON_HOLD conversations assigned to them now' }) readonly openNow: number;
}
export class AnalyticsWorkforceResponse {
  @ApiProperty() readonly from: string;
  @ApiProperty() readonly to: string;
  @ApiProperty({ type: [AgentFigures] }) readonly agents: AgentFigures[];
}

class AiBucket {
  @ApiProperty() readonly bucket: string;
  @ApiProperty() readonly replies: number;
  @ApiProperty() readonly handoffs: number;
}
export class AnalyticsAiResponse {
  @ApiProperty() readonly from: string;
  @ApiProperty() readonly to: string;
  @ApiProperty({ enum: INTERVALS }) readonly interval: AnalyticsInterval;
  @ApiProperty({ description: 'Messages the AI sent in the window' }) readonly replies: number;
  @ApiProperty({ description: 'Conversations the AI handed to a human in the window' }) readonly handoffs: number;
  @ApiProperty({ description: 'Conversations with at least one AI reply in the window' })
  readonly conversationsWithAi: number;
  @ApiProperty({ description: 'Resolved in the window, answered by the AI, no agent message, no handoff' })
  readonly resolvedWithoutHuman: number;
  @ApiProperty({
    nullable: true,
    type: Number,
    description: 'resolvedWithoutHuman / conversations resolved in the window with an AI reply (0–1)',
  })
  readonly automatedResolutionRate: number | null;
  @ApiProperty({ type: [AiBucket] }) readonly series: AiBucket[];
}
