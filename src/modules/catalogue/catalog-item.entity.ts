import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

export const CATALOG_ITEM_STATUSES = ['ON_SALE', 'OFF_SALE'] as const;
export type CatalogItemStatus = (typeof CATALOG_ITEM_STATUSES)[number];

export const CATALOG_ITEM_SOURCES = ['MANUAL', 'CSV', 'FEED', 'WEBSITE'] as const;
export type CatalogItemSource = (typeof CATALOG_ITEM_SOURCES)[number];

/** Who took an item off sale: only the same hand brings it back (a sync never restores a manual removal). */
export type OffSaleReason = 'MANUAL' | 'FEED' | 'WEBSITE';

/** A price exactly as it was sent: a number, or a string quoted verbatim. */
export type CatalogPrice = number | string;

@Entity('catalog_items')
export class CatalogItemEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column('uuid')
  workspaceId: string;

  /** The caller's own id (feed, CSV, manual); unique per workspace. */
  @Column('text', { nullable: true })
  externalId: string | null;

  @Column('uuid', { nullable: true })
  websiteId: string | null;

  /** The product's id on the website it is synced from; unique per website connection. */
  @Column('text', { nullable: true })
  websiteProductId: string | null;

  @Column('text', { nullable: true })
  name: string | null;

  @Column('jsonb', { nullable: true })
  price: CatalogPrice | null;

  /** The price the website gave at the last sync: a different current price is a local edit. */
  @Column('jsonb', { nullable: true })
  syncedPrice: CatalogPrice | null;

  @Column('text', { nullable: true })
  currency: string | null;

  @Column('text', { nullable: true })
  description: string | null;

  @Column('text', { nullable: true })
  sku: string | null;

  @Column('text', { nullable: true })
  category: string | null;

  @Column('integer', { nullable: true })
  stock: number | null;

  @Column('text', { array: true, default: [] })
  images: string[];

  @Column('text', { array: true, default: [] })
  keywords: string[];

  @Column('text')
  status: CatalogItemStatus;

  @Column('text', { nullable: true })
  offSaleReason: OffSaleReason | null;

  @Column('text')
  source: CatalogItemSource;

  @Column('text', { nullable: true })
  notice: string | null;

  /** Internal: the fields the last feed/CSV write sent (the upsert's per-row mask). Never returned. */
  @Column('text', { array: true, default: [] })
  sentFields: string[];

  @CreateDateColumn({ type: 'timestamptz', precision: 3 })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz', precision: 3 })
  updatedAt: Date;
}
