import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { ImportMapping } from './csv/header-guess.util';

export type ImportStatus = 'READY' | 'COMMITTING' | 'COMMITTED';

/** A CSV upload between preview and commit: the file lives here (not in process memory) so any instance can commit it. */
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

  /** The decoded file (BOM removed), gzip-compressed (a 24 MB CSV stores as ~3 MB); erased once committed. */
  @Column('bytea', { nullable: true, select: false })
  contentGzip: Buffer | null;

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
