import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { Role } from 'src/core/auth/roles';

@Entity('memberships')
export class MembershipEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid')
  userId: string;

  @Column('text')
  role: Role;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;
}
