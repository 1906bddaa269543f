import { Column, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { ChannelType } from 'src/modules/channels';

export const INBOUND_EVENT_STATUSES = ['RECEIVED', 'PROCESSING', 'PROCESSED', 'FAILED'] as const;
export type InboundEventStatus = (typeof INBOUND_EVENT_STATUSES)[number];

/** What processing an event did. */
export type InboundEventOutcome = 'MESSAGE_STORED' | 'DUPLICATE' | 'DELIVERY_UPDATED' | 'IGNORED';

@Entity('inbound_events')
export class InboundEventEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Arrival order (bigint, as a string). */
  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  channelId: string;

  @Column('text')
  channelType: ChannelType;

  @Column('text', { nullable: true })
  senderKey: string | null;

  @Column('text', { nullable: true })
  externalId: string | null;

  @Column('jsonb')
  payload: Record<string, unknown>;

  /** The request's raw bytes, kept only when the payload had to be sanitised (it held U+0000). */
  @Column('bytea', { nullable: true, select: false })
  rawBody: Buffer | null;

  @Column('text')
  status: InboundEventStatus;

  @Column('integer')
  attempts: number;

  @Column('text', { nullable: true })
  error: string | null;

  @Column('text', { nullable: true })
  outcome: InboundEventOutcome | null;

  @Column('uuid', { nullable: true })
  messageId: string | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  nextAttemptAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3 })
  receivedAt: Date;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  processingStartedAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  processedAt: Date | null;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
