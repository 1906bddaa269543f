import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const QUEUE_STRATEGIES = ['ROUND_ROBIN', 'LEAST_BUSY', 'MANUAL'] as const;
export type QueueStrategy = (typeof QUEUE_STRATEGIES)[number];

@Entity('queues')
export class QueueEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('text')
  name: string;

  @Column('boolean')
  isDefault: boolean;

  @Column('text')
  strategy: QueueStrategy;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
