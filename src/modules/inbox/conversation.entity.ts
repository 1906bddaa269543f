import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Priority } from 'src/core/domain/vocabulary';
import type { ChannelType } from 'src/modules/channels';

export const CONVERSATION_STATUSES = ['OPEN', 'ON_HOLD', 'RESOLVED'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

export interface WrapUp {
  readonly outcome: string | null;
  readonly note: string | null;
}

export interface SuggestedReply {
  readonly text: string;
  /** Catalogue item ids the draft is about. */
  readonly items: string[];
  readonly createdAt: string;
}

@Entity('conversations')
export class ConversationEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  contactId: string;

  @Column('uuid')
  channelId: string;

  @Column('text')
  channelType: ChannelType;

  /** The customer's id on the channel: where replies go. */
  @Column('text')
  contactExternalId: string;

  @Column('text')
  status: ConversationStatus;

  @Column('text')
  priority: Priority;

  @Column('uuid', { nullable: true })
  queueId: string | null;

  @Column('uuid', { nullable: true })
  assigneeId: string | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  assignedAt: Date | null;

  @Column('text', { array: true })
  tags: string[];

  @Column('text', { nullable: true })
  subject: string | null;

  /** The latest message either way (creation time until there is one): the inbox's order. */
  @Column({ type: 'timestamptz', precision: 3, default: () => 'now()' })
  lastMessageAt: Date;

  @Column('text', { nullable: true })
  lastMessagePreview: string | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  lastInboundAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  firstResponseAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  firstResponseDueAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  resolutionDueAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  resolvedAt: Date | null;

  @Column('text', { nullable: true })
  onHoldReason: string | null;

  @Column('jsonb', { nullable: true })
  wrapUp: WrapUp | null;

  @Column('jsonb', { nullable: true })
  suggestedReply: SuggestedReply | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
