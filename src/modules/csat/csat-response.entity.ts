import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A conversation's (latest) customer-satisfaction rating: one row per conversation. */
@Entity('csat_responses')
export class CsatResponseEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  conversationId: string;

  @Column('smallint')
  score: number;

  @Column('text', { nullable: true })
  comment: string | null;

  /** When the (latest) rating was given. */
  @Column({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
