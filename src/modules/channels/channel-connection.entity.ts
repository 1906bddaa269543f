import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { ChannelConfig, ChannelStatus, ChannelType } from './channel.types';

@Entity('channel_connections')
export class ChannelConnectionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('text')
  type: ChannelType;

  @Column('text')
  name: string;

  @Column('text')
  status: ChannelStatus;

  @Column('jsonb', { default: {} })
  config: ChannelConfig;

  /** SecretBox-sealed JSON of ChannelSecrets; null once disconnected. */
  @Column('text', { nullable: true })
  secrets: string | null;

  @Column('text', { nullable: true })
  routingKey: string | null;

  @Column('text', { nullable: true })
  secretTokenHash: string | null;

  @Column('text', { nullable: true })
  verifyTokenHash: string | null;

  @Column('boolean', { default: false })
  hasOutboundSecret: boolean;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  disconnectedAt: Date | null;
}
