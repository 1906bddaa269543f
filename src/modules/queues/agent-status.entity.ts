import { Column, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const PRESENCE_STATUSES = ['ONLINE', 'AWAY', 'OFFLINE'] as const;
export type PresenceStatus = (typeof PRESENCE_STATUSES)[number];

/** Routing state of one member: capacity and presence (no row = OFFLINE, default capacity). */
@Entity('agent_status')
export class AgentStatusEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  userId: string;

  @Column('integer')
  maxConversations: number;

  @Column('text')
  presence: PresenceStatus;

  @Column({ type: 'timestamptz', precision: 3 })
  presenceChangedAt: Date;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  lastAssignedAt: Date | null;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
