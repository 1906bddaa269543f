import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { Priority } from 'src/core/domain/vocabulary';
import type { TicketSource, TicketStatus } from './tickets.constants';

@Entity('tickets')
export class TicketEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  /** Per-workspace sequence number (bigint: read as a string). */
  @Column('bigint')
  number: string;

  /** Prefix at creation + '-' + number, e.g. `TCK-1042`; never changes. */
  @Column('text')
  key: string;

  @Column('text')
  subject: string;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text')
  status: TicketStatus;

  @Column('text')
  priority: Priority;

  @Column('text')
  source: TicketSource;

  @Column('uuid', { nullable: true })
  assigneeId: string | null;

  @Column('uuid', { nullable: true })
  queueId: string | null;

  @Column('uuid', { nullable: true })
  contactId: string | null;

  @Column('uuid', { nullable: true })
  conversationId: string | null;

  @Column('text', { array: true })
  tags: string[];

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  dueAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  resolvedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
