import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The policy applied to one conversation, its due times and the breach timer's bookkeeping. */
@Entity('conversation_slas')
export class ConversationSlaEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  conversationId: string;

  /** The policy as applied; kept (with its name) after the policy is deleted. */
  @Column('uuid')
  policyId: string;

  @Column('text')
  policyName: string;

  @Column({ type: 'timestamptz', precision: 3 })
  conversationCreatedAt: Date;

  @Column({ type: 'timestamptz', precision: 3 })
  firstResponseDueAt: Date;

  @Column({ type: 'timestamptz', precision: 3 })
  resolutionDueAt: Date;

  /** When the timer looked at the first-response target (once, at or after its due time). */
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  firstResponseCheckedAt: Date | null;

  /** Set when that check found a breach (and `sla.breached` was published). */
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  firstResponseBreachedAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  resolutionCheckedAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  resolutionBreachedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
