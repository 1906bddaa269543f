import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { ImportMapping } from './csv/header-guess.util';

export type ImportStatus = 'READY' | 'COMMITTING' | 'COMMITTED';

/**
 * A CSV upload between preview and commit: the file lives in the database (not in process memory) so
 * any instance can commit it, gzip-compressed in pieces (`catalog_import_chunks`, erased once committed).
 */
@Entity('catalog_imports')
export class CatalogImportEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('uuid', { nullable: true })
  createdBy: string | null;

  @Column('text', { nullable: true })
  filename: string | null;

  @Column('text')
  delimiter: string;

  @Column('text', { array: true })
  headers: string[];

  @Column('jsonb')
  mapping: ImportMapping;

  @Column('integer')
  totalRows: number;

  @Column('text')
  status: ImportStatus;

  @Column('jsonb', { nullable: true })
  result: Record<string, unknown> | null;

  @Column({ type: 'timestamptz', precision: 3 })
  expiresAt: Date;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
