import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('ticket_comments')
export class TicketCommentEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  ticketId: string;

  /** The user; null when written with an API token (or the user was deleted). */
  @Column('uuid', { nullable: true })
  authorId: string | null;

  @Column('text')
  body: string;

  /** Internal notes are for the team only (nothing is sent to the customer either way). */
  @Column('boolean')
  internal: boolean;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
