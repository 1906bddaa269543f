import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One attempt to deliver one event to one webhook. A retry is a new row (attempt + 1). */
@Entity('webhook_deliveries')
export class WebhookDeliveryEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  webhookId: string;

  @Column('uuid')
  eventId: string;

  @Column('text')
  eventType: string;

  @Column('integer', { default: 1 })
  attempt: number;

  @Column('text', { default: 'PENDING' })
  status: DeliveryStatus;

  @Column('integer', { nullable: true })
  statusCode: number | null;

  @Column('integer', { nullable: true })
  durationMs: number | null;

  @Column('text', { nullable: true })
  error: string | null;

  @Column('text', { nullable: true })
  responseExcerpt: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  nextAttemptAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  lockedUntil: Date | null;
}
