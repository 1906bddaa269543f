import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('sla_policies')
export class SlaPolicyEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('text')
  name: string;

  @Column('boolean')
  active: boolean;

  /** Matching order, lowest first (ties: oldest first). `order` is a reserved word in SQL. */
  @Column('integer', { name: 'position' })
  order: number;

  /** Empty = any priority. */
  @Column('text', { array: true })
  priorities: string[];

  /** Empty = any channel type. */
  @Column('text', { array: true })
  channelTypes: string[];

  /** Empty = any queue. */
  @Column('uuid', { array: true })
  queueIds: string[];

  @Column('integer')
  firstResponseMinutes: number;

  @Column('integer')
  resolutionMinutes: number;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
