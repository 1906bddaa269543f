import type { Priority } from 'src/core/domain/vocabulary';
import { Column, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** One row per workspace once its settings were changed; none means the defaults. */
@Entity('ticket_settings')
export class TicketSettingsEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('boolean')
  autoCreateFromConversation: boolean;

  @Column('text')
  keyPrefix: string;

  @Column('text')
  defaultPriority: Priority;

  @Column('boolean')
  resolveWithConversation: boolean;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
