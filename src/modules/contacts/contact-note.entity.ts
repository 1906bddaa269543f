import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('contact_notes')
export class ContactNoteEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  contactId: string;

  /** The user who wrote it; null for API tokens (and once the user is deleted). */
  @Column('uuid', { nullable: true })
  authorId: string | null;

  @Column('text')
  text: string;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
