import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const WEBSITE_FORMATS = ['AUTO', 'GENERIC', 'SHOPIFY', 'WOOCOMMERCE'] as const;
export type WebsiteFormat = (typeof WEBSITE_FORMATS)[number];
export type ConcreteWebsiteFormat = Exclude<WebsiteFormat, 'AUTO'>;

export type WebsiteStatus = 'ACTIVE' | 'DISCONNECTED';
export type WebsiteSyncStatus = 'SUCCESS' | 'FAILED' | 'GUARD_STOPPED';

export const MIN_INTERVAL_MINUTES = 15;
export const MAX_INTERVAL_MINUTES = 1440;

@Entity('catalog_websites')
export class CatalogWebsiteEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  @Column('text')
  name: string;

  /** The product list link, possibly with a `{page}` placeholder. */
  @Column('text')
  url: string;

  @Column('text')
  format: WebsiteFormat;

  /** What AUTO recognised at the last successful fetch. */
  @Column('text', { nullable: true })
  detectedFormat: ConcreteWebsiteFormat | null;

  @Column('text', { nullable: true })
  keyHeaderName: string | null;

  /** SecretBox-sealed; never returned by the API. */
  @Column('text', { nullable: true })
  keyHeaderValue: string | null;

  @Column('integer')
  intervalMinutes: number;

  @Column('text')
  status: WebsiteStatus;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  lastSyncAt: Date | null;

  @Column('text', { nullable: true })
  lastSyncStatus: WebsiteSyncStatus | null;

  @Column('text', { nullable: true })
  lastSyncMessage: string | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  nextSyncAt: Date | null;

  @Column({ type: 'timestamptz', precision: 3, nullable: true })
  disconnectedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
