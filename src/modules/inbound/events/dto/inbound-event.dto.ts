import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional } from 'class-validator';
import { CursorPaginationQuery } from 'src/core/http/pagination';
import { INBOUND_EVENT_STATUSES, type InboundEventEntity, type InboundEventStatus } from '../inbound-event.entity';

export class ListInboundEventsQuery extends CursorPaginationQuery {
  @ApiPropertyOptional({ enum: INBOUND_EVENT_STATUSES })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.toUpperCase() : value))
  @IsIn(INBOUND_EVENT_STATUSES)
  readonly status?: InboundEventStatus;
}

export class InboundEventResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ format: 'uuid' }) readonly channelId: string;
  @ApiProperty() readonly channelType: string;
  @ApiProperty({ enum: INBOUND_EVENT_STATUSES }) readonly status: InboundEventStatus;
  @ApiProperty({ description: 'Processing attempts so far' }) readonly attempts: number;
  @ApiProperty({ nullable: true, type: String, description: 'The last processing error' }) readonly error:
    string | null;
  @ApiProperty({ nullable: true, type: String, enum: ['MESSAGE_STORED', 'DUPLICATE', 'DELIVERY_UPDATED', 'IGNORED'] })
  readonly outcome: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) readonly messageId: string | null;
  @ApiProperty({ nullable: true, type: String, description: "The platform's message id" }) readonly externalId:
    string | null;
  @ApiProperty({ nullable: true, type: String, description: "The customer's id on the platform" }) readonly senderId:
    string | null;
  @ApiProperty({ type: Object, description: 'The event as the platform sent it' }) readonly payload: Record<
    string,
    unknown
  >;
  @ApiProperty() readonly receivedAt: string;
  @ApiProperty({ nullable: true, type: String }) readonly processedAt: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'When the next retry is due' }) readonly nextAttemptAt:
    string | null;
}

export function toInboundEventResponse(e: InboundEventEntity): InboundEventResponse {
  return {
    id: e.id,
    channelId: e.channelId,
    channelType: e.channelType,
    status: e.status,
    attempts: e.attempts,
    error: e.error,
    outcome: e.outcome,
    messageId: e.messageId,
    externalId: e.externalId,
    senderId: e.senderKey,
    payload: e.payload,
    receivedAt: e.receivedAt.toISOString(),
    processedAt: e.processedAt?.toISOString() ?? null,
    nextAttemptAt: e.nextAttemptAt?.toISOString() ?? null,
  };
}

export class WebhookAckResponse {
  @ApiProperty({ example: true }) readonly received: true;
  @ApiProperty({
    nullable: true,
    type: String,
    format: 'uuid',
    description: 'The (first) stored event; null when nothing needed storing',
  })
  readonly eventId: string | null;
  @ApiProperty({ type: [String], description: 'Every event stored from this request (Meta batches several)' })
  readonly eventIds: string[];
}
