import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** ACTIVE: the AI agent may answer; HANDED_OFF: it handed the conversation to humans; HUMAN: a flow kept it silent. */
export type AiConversationStatus = 'ACTIVE' | 'HANDED_OFF' | 'HUMAN';

/** What the AI agent remembers about one conversation (DESIGN §14 handoff). */
@Entity('ai_conversation_states')
export class AiConversationStateEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  conversationId: string;

  /** The agent that answered (or handed off) last. */
  @Column('uuid', { nullable: true })
  agentId: string | null;

  @Column('text')
  status: AiConversationStatus;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  handedOffAt: Date | null;

  @Column('text', { nullable: true })
  handoffReason: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
