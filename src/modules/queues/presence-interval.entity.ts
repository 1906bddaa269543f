import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { PresenceStatus } from './agent-status.entity';

/** One stretch of a member's presence; the open one has no `endedAt` (workforce analytics sums them). */
@Entity('presence_intervals')
export class PresenceIntervalEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  userId: string;

  @Column('text')
  status: PresenceStatus;

  @Column({ type: 'timestamptz', precision: 3 })
  startedAt: Date;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  endedAt: Date | null;
}
