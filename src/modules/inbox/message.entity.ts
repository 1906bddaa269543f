import { Column, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const MESSAGE_DIRECTIONS = ['INBOUND', 'OUTBOUND'] as const;
export type MessageDirection = (typeof MESSAGE_DIRECTIONS)[number];

export const SENDER_TYPES = ['CONTACT', 'AGENT', 'AI', 'AUTOMATION', 'SYSTEM'] as const;
export type SenderType = (typeof SENDER_TYPES)[number];

export const MESSAGE_TYPES = ['TEXT', 'IMAGE', 'FILE', 'BUTTONS', 'POSTBACK'] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const DELIVERY_STATUSES = ['RECEIVED', 'PENDING', 'SENT', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface MessageAttachment {
  readonly type: string;
  readonly url: string;
}

export interface MessageButton {
  readonly title: string;
  readonly payload: string;
}

/** Platform details kept for flows and audits. */
export interface MessageMetadata {
  /** When the platform says the customer sent it. */
  readonly platformSentAt?: string;
  /** The ad that brought the customer (AD_REFERRAL flows). */
  readonly referral?: { readonly adId: string | null; readonly source: string | null; readonly ref: string | null };
  /** The latest platform delivery receipt (WhatsApp statuses). */
  readonly receipt?: string;
  readonly receiptAt?: string;
}

@Entity('messages')
export class MessageEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Insertion order (bigint as a string): the order of a conversation's messages. */
  @Column({ type: 'bigint', insert: false, update: false })
  seq: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  conversationId: string;

  @Column('uuid')
  channelId: string;

  @Column('text')
  direction: MessageDirection;

  @Column('text')
  senderType: SenderType;

  @Column('uuid', { nullable: true })
  senderId: string | null;

  @Column('text')
  type: MessageType;

  @Column('text', { nullable: true })
  text: string | null;

  @Column('jsonb', { default: [] })
  attachments: MessageAttachment[];

  @Column('jsonb', { nullable: true })
  buttons: MessageButton[] | null;

  @Column('text', { nullable: true })
  postbackPayload: string | null;

  @Column('text', { nullable: true })
  externalId: string | null;

  @Column('text')
  deliveryStatus: DeliveryStatus;

  @Column('text', { nullable: true })
  deliveryError: string | null;

  @Column('integer', { default: 0 })
  deliveryAttempts: number;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  nextAttemptAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  sentAt: Date | null;

  @Column('jsonb', { default: {} })
  metadata: MessageMetadata;

  @Column({ type: 'timestamptz', precision: 3, insert: false })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
