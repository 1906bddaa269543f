import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** An internal note on a conversation: for the team, never sent to the customer. */
@Entity('conversation_notes')
export class ConversationNoteEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  conversationId: string;

  /** The member who wrote it; null for an API token (or a member who left). */
  @Column('uuid', { nullable: true })
  authorId: string | null;

  @Column('text')
  text: string;

  @Column({ type: 'timestamptz', precision: 3, insert: false })
  createdAt: Date;
}
