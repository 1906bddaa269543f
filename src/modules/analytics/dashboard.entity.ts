import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export interface StoredWidget {
  readonly id: string;
  readonly type: string;
  readonly source: string;
  readonly metric: string;
  readonly options: Record<string, unknown>;
  readonly position: { x: number; y: number; w: number; h: number };
}

/** A saved dashboard: widgets over the analytics sources; private to its owner unless `shared`. */
@Entity('analytics_dashboards')
export class DashboardEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  /** The member who made it; null when an API token made it (then it is always shared). */
  @Column('uuid', { nullable: true })
  ownerId: string | null;

  @Column('text')
  name: string;

  @Column('boolean')
  shared: boolean;

  @Column('jsonb')
  widgets: StoredWidget[];

  @Column({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @Column({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
