import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** A contact's address on one channel; (workspace, channelType, channelId, externalId) is unique. */
@Entity('contact_identities')
export class ContactIdentityEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  contactId: string;

  @Column('text')
  channelType: string;

  @Column('text')
  channelId: string;

  @Column('text')
  externalId: string;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
