import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { CustomFieldType } from './custom-fields.util';

/** A custom field definition; contact values live in `contacts.custom_fields` under `key`. */
@Entity('contact_fields')
export class ContactFieldEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('text')
  key: string;

  @Column('text')
  label: string;

  @Column('text')
  type: CustomFieldType;

  @Column('text', { array: true, default: [] })
  options: string[];

  @Column('boolean', { default: false })
  required: boolean;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
