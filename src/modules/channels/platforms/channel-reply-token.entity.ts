import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** A platform reply token (LINE) for the customer's last inbound event on a connection, until it expires or is used. */
@Entity('channel_reply_tokens')
export class ChannelReplyTokenEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  channelId: string;

  /** The customer's id on the channel (LINE user id). */
  @Column('text')
  recipientId: string;

  @Column('text')
  token: string;

  @Column({ type: 'timestamptz', precision: 3 })
  expiresAt: Date;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
