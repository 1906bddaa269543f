import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayNotEmpty,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  MaxLength,
} from 'class-validator';
import { EVENT_NAMES } from 'src/core/events/event-bus';
import { CursorPaginationQuery } from 'src/core/http/pagination';
import { trim, upper } from 'src/core/http/transforms';
import type { WebhookEntity } from '../webhooks/webhook.entity';
import {
  DELIVERY_STATUSES,
  type DeliveryStatus,
  type WebhookDeliveryEntity,
} from '../webhooks/webhook-delivery.entity';

export class CreateWebhookDto {
  @ApiProperty({ example: 'https://example.com/hooks/support' })
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  readonly url: string;

  @ApiProperty({ enum: EVENT_NAMES, isArray: true, example: ['message.received', 'ticket.created'] })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsString({ each: true })
  readonly events: string[];

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  readonly description?: string | null;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  readonly active?: boolean;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional()
  @IsOptional()
  @Transform(trim)
  @IsString()
  @IsNotEmpty()
  @MaxLength(2000)
  readonly url?: string;

  @ApiPropertyOptional({ enum: EVENT_NAMES, isArray: true })
  @IsOptional()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayUnique()
  @IsString({ each: true })
  readonly events?: string[];

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 500 })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  readonly description?: string | null;

  @ApiPropertyOptional({ description: '`true` re-enables a disabled webhook and resets its failure count' })
  @IsOptional()
  @IsBoolean()
  readonly active?: boolean;
}

export class ListDeliveriesQuery extends CursorPaginationQuery {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @Transform(upper)
  @IsIn(DELIVERY_STATUSES)
  readonly status?: DeliveryStatus;

  @ApiPropertyOptional({ enum: EVENT_NAMES })
  @IsOptional()
  @IsIn(EVENT_NAMES, { message: `eventType must be one of: ${EVENT_NAMES.join(', ')}` })
  readonly eventType?: string;
}

export class DeliveryParams {
  @ApiProperty({ format: 'uuid' })
  @IsString()
  readonly id: string;

  @ApiProperty({ format: 'uuid' })
  @IsString()
  readonly deliveryId: string;
}

export class WebhookResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty() readonly url: string;
  @ApiProperty({ enum: EVENT_NAMES, isArray: true }) readonly events: string[];
  @ApiProperty() readonly active: boolean;
  @ApiProperty({ nullable: true, type: String }) readonly description: string | null;
  @ApiProperty({ description: 'Failed attempts in a row (50 disable the webhook)' }) readonly failureCount: number;
  @ApiProperty({ nullable: true, type: String }) readonly disabledAt: string | null;
  @ApiProperty() readonly createdAt: string;
  @ApiProperty() readonly updatedAt: string;
}

export class WebhookWithSecretResponse extends WebhookResponse {
  @ApiProperty({ description: '`whsec_…`: shown only at creation and rotation' }) readonly secret: string;
}

export class WebhookDeliveryResponse {
  @ApiProperty({ format: 'uuid' }) readonly id: string;
  @ApiProperty({ format: 'uuid', description: 'The event id (`webhook-id` header, payload `id`)' })
  readonly eventId: string;
  @ApiProperty({ enum: EVENT_NAMES }) readonly eventType: string;
  @ApiProperty() readonly attempt: number;
  @ApiProperty({ enum: DELIVERY_STATUSES }) readonly status: DeliveryStatus;
  @ApiProperty({ nullable: true, type: Number }) readonly statusCode: number | null;
  @ApiProperty({ nullable: true, type: Number }) readonly durationMs: number | null;
  @ApiProperty({ nullable: true, type: String }) readonly error: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'First KB of the answer' })
  readonly responseExcerpt: string | null;
  @ApiProperty() readonly createdAt: string;
  @ApiProperty({ nullable: true, type: String }) readonly nextAttemptAt: string | null;
}

export class WebhookTestResponse {
  @ApiProperty() readonly delivered: boolean;
  @ApiProperty({ nullable: true, type: Number }) readonly statusCode: number | null;
  @ApiProperty() readonly durationMs: number;
  @ApiProperty({ nullable: true, type: String }) readonly error: string | null;
}

export function toWebhookResponse(w: WebhookEntity): WebhookResponse {
  return {
    id: w.id,
    url: w.url,
    events: w.events,
    active: w.active,
    description: w.description,
    failureCount: w.failureCount,
    disabledAt: w.disabledAt?.toISOString() ?? null,
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}

export function toDeliveryResponse(d: WebhookDeliveryEntity): WebhookDeliveryResponse {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    attempt: d.attempt,
    status: d.status,
    statusCode: d.statusCode,
    durationMs: d.durationMs,
    error: d.error,
    responseExcerpt: d.responseExcerpt,
    createdAt: d.createdAt.toISOString(),
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
  };
}
