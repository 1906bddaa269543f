import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const WORKSPACE_PLANS = ['STARTER', 'PRO', 'ENTERPRISE'] as const;
export type WorkspacePlan = (typeof WORKSPACE_PLANS)[number];

@Entity('workspaces')
export class WorkspaceEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('text')
  name: string;

  @Column('text')
  plan: WorkspacePlan;

  @Column('text')
  timezone: string;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
