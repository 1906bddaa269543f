import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

@Entity('queue_members')
export class QueueMemberEntity {
  @PrimaryColumn('uuid')
  queueId: string;

  @PrimaryColumn('uuid')
  userId: string;

  @Column('uuid')
  workspaceId: string;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
