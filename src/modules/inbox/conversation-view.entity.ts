import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Priority } from 'src/core/domain/vocabulary';
import type { ConversationStatus } from './conversation.entity';

/** The saved subset of `GET /conversations` filters. */
export interface ConversationViewFilters {
  readonly status?: ConversationStatus[];
  readonly priority?: Priority[];
  readonly queueId?: string;
  /** A user id, `me` (whoever applies the view) or `unassigned`. */
  readonly assigneeId?: string;
  readonly channelId?: string;
  readonly tag?: string;
  readonly search?: string;
}

/** A saved inbox view: personal (its creator only) or shared with the workspace. */
@Entity('conversation_views')
export class ConversationViewEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('text')
  name: string;

  @Column('jsonb')
  filters: ConversationViewFilters;

  @Column('boolean')
  shared: boolean;

  /** Null when created with an API token (only shared views can be). */
  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
