import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('webhooks')
export class WebhookEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('text')
  url: string;

  @Column('text', { array: true })
  events: string[];

  @Column('boolean', { default: true })
  active: boolean;

  @Column('text', { nullable: true })
  description: string | null;

  /** `whsec_…` sealed with SecretBox. */
  @Column('text')
  secret: string;

  /** The secret before the last rotation (sealed), used to sign too until `previousSecretExpiresAt`. */
  @Column('text', { nullable: true })
  previousSecret: string | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  previousSecretExpiresAt: Date | null;

  @Column('integer', { default: 0 })
  failureCount: number;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  disabledAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
