import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const AI_PROVIDERS = ['BUILTIN', 'OPENAI_COMPATIBLE'] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];

/** An AI agent (DESIGN §9). */
@Entity('ai_agents')
export class AiAgentEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('text')
  name: string;

  @Column('boolean')
  active: boolean;

  @Column('text')
  instructions: string;

  /** Empty: every channel. */
  @Column('uuid', { array: true })
  channelIds: string[];

  @Column('boolean')
  useCatalog: boolean;

  @Column('text', { array: true })
  handoffKeywords: string[];

  @Column('text', { nullable: true })
  handoffMessage: string | null;

  @Column('text')
  provider: AiProvider;

  @Column('text', { nullable: true })
  model: string | null;

  @Column('double precision')
  temperature: number;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
