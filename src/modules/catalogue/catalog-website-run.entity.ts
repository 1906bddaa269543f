import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export type WebsiteRunTrigger = 'SCHEDULE' | 'MANUAL';
export type WebsiteRunStatus = 'RUNNING' | 'SUCCESS' | 'FAILED' | 'GUARD_STOPPED';

@Entity('catalog_website_runs')
export class CatalogWebsiteRunEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  websiteId: string;

  @Column('text')
  trigger: WebsiteRunTrigger;

  @Column('text')
  status: WebsiteRunStatus;

  @Column('boolean')
  confirmOffSale: boolean;

  /** Set when a worker takes the run: a redelivered job finds it taken and skips. */
  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  pickedAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3 })
  startedAt: Date;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  finishedAt: Date | null;

  @Column('integer') pages: number;
  @Column('integer') fetched: number;
  @Column('integer') created: number;
  @Column('integer') updated: number;
  @Column('integer') offSale: number;
  @Column('integer') restored: number;
  @Column('integer') unchanged: number;

  @Column('text', { nullable: true })
  message: string | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
