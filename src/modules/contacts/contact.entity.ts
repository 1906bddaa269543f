import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { CustomFieldValues } from './custom-fields.util';

@Entity('contacts')
export class ContactEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('text', { nullable: true })
  name: string | null;

  /** Always lower-cased. */
  @Column('text', { nullable: true })
  email: string | null;

  /** As sent, for display. */
  @Column('text', { nullable: true })
  phone: string | null;

  /** `+` (when sent) and digits: what phones are matched by. */
  @Column('text', { nullable: true })
  phoneNormalized: string | null;

  @Column('text', { nullable: true })
  avatarUrl: string | null;

  @Column('uuid', { nullable: true })
  companyId: string | null;

  @Column('jsonb', { default: {} })
  customFields: CustomFieldValues;

  @Column('text', { array: true, default: [] })
  tags: string[];

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
