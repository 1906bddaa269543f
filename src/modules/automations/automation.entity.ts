import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { AutomationAction, AutomationKind, AutomationTrigger, ConditionSet } from './automation.types';

/** A RULE or a FLOW (DESIGN §8); the JSON columns hold what the definition registry validated. */
@Entity('automations')
export class AutomationEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('text')
  name: string;

  @Column('boolean')
  active: boolean;

  @Column('text')
  kind: AutomationKind;

  @Column('jsonb')
  trigger: AutomationTrigger;

  @Column('jsonb')
  conditions: ConditionSet;

  @Column('jsonb')
  actions: AutomationAction[];

  @Column('integer')
  order: number;

  @Column('integer')
  runCount: number;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  lastRunAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
