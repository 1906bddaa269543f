import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { RunActionResult, RunStatus } from './automation.types';

/** One evaluated automation for one event (the run log, DESIGN §8). */
@Entity('automation_runs')
export class AutomationRunEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  automationId: string;

  @Column('text')
  trigger: string;

  @Column('uuid', { nullable: true })
  conversationId: string | null;

  @Column('boolean')
  matched: boolean;

  @Column('text')
  status: RunStatus;

  @Column('jsonb')
  actions: RunActionResult[];

  @Column('integer')
  durationMs: number;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
