import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { type Page, findKeysetPage, newestFirst } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { CacheInvalidation } from 'src/core/events/cache-invalidation';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import {
  CatalogItemEntity,
  type CatalogItemStatus,
  type CatalogPrice,
  type OffSaleReason,
} from './catalog-item.entity';
import type { ListCatalogItemsQuery } from './dto/catalog-item.dto';
import { likePattern } from 'src/core/database/pg-errors';

/** One feed item as the upsert takes it: every field (null when not sent) plus the mask of fields sent. */
export interface FeedRow {
  readonly external_id: string;
  readonly name: string | null;
  readonly price: CatalogPrice | null;
  readonly currency: string | null;
  readonly description: string | null;
  readonly sku: string | null;
  readonly category: string | null;
  readonly stock: number | null;
  readonly images: string[] | null;
  readonly sent: string[];
}

/** One CSV row as the import batch takes it; `ord` is its spreadsheet row number. */
export interface ImportRow extends Omit<FeedRow, 'external_id'> {
  readonly ord: number;
  readonly external_id: string | null;
  readonly keywords: string[] | null;
}

export interface ImportBatchResult {
  readonly created: number;
  readonly updated: number;
  /** Rows that matched nothing and have no name to create a product with. */
  readonly namelessRows: number[];
}

/** A synced item as the sync planner sees it (locked for the run's transaction). */
export interface ExistingWebsiteItem {
  readonly id: string;
  readonly websiteProductId: string;
  readonly name: string | null;
  readonly price: CatalogPrice | null;
  readonly syncedPrice: CatalogPrice | null;
  readonly currency: string | null;
  readonly description: string | null;
  readonly sku: string | null;
  readonly category: string | null;
  readonly stock: number | null;
  readonly images: string[];
  readonly status: CatalogItemStatus;
  readonly offSaleReason: OffSaleReason | null;
  readonly notice: string | null;
}

/** A synced product's complete new state (created or changed). Keywords are never part of it. */
export interface WebsiteItemRow {
  readonly website_product_id: string;
  readonly name: string | null;
  readonly price: CatalogPrice | null;
  readonly synced_price: CatalogPrice | null;
  readonly currency: string | null;
  readonly description: string | null;
  readonly sku: string | null;
  readonly category: string | null;
  readonly stock: number | null;
  readonly images: string[];
  readonly status: CatalogItemStatus;
  readonly off_sale_reason: OffSaleReason | null;
  readonly notice: string | null;
}

/** Rows per statement for set-based website writes (keeps each JSON parameter a few MB at most). */
const WEBSITE_WRITE_CHUNK = 2_000;

/** `field = CASE WHEN 'field' = ANY(mask) THEN new ELSE old END`: only the fields that were sent change. */
function onlySent(field: string, column: string, mask: string, incoming: string, current: string): string {
  return `${column} = CASE WHEN '${field}' = ANY(${mask}) THEN ${incoming} ELSE ${current} END`;
}

@Injectable()
export class CatalogItemsRepository extends WorkspaceScopedRepository<CatalogItemEntity> {
  constructor(
    tx: TransactionHost,
    private readonly invalidation: CacheInvalidation,
  ) {
    super(tx, CatalogItemEntity, 'ci', 'Catalogue item');
  }

  /**
   * Every write of items tells the caches of the catalogue (whether a workspace has an item on sale,
   * CatalogAgentSearch) in every process, at commit. Called after the write, in its transaction.
   */
  protected override afterWrite(): Promise<void> {
    return this.invalidation.changed('catalogue');
  }

  /** Newest first; status defaults to ON_SALE (`ALL` for both). */
  findPage(query: ListCatalogItemsQuery): Promise<Page<CatalogItemEntity>> {
    const qb = this.scopedQuery();
    const status = query.status ?? 'ON_SALE';
    if (status !== 'ALL') qb.andWhere('ci.status = :status', { status });
    if (query.search?.trim()) {
      qb.andWhere(
        // One trigram-indexed expression over the four fields (migration 1763916000000).
        `catalog_item_search_text(ci.name, ci.sku, ci.description, ci.keywords) ILIKE :search`,
        { search: likePattern(query.search.trim()) },
      );
    }
    if (query.category !== undefined)
      qb.andWhere('lower(ci.category) = lower(:category)', { category: query.category });
    if (query.source) qb.andWhere('ci.source = :source', { source: query.source });
    if (query.websiteId) qb.andWhere('ci.website_id = :websiteId', { websiteId: query.websiteId });
    if (query.inStock === true) qb.andWhere('(ci.stock IS NULL OR ci.stock > 0)');
    if (query.inStock === false) qb.andWhere('ci.stock <= 0');
    return findKeysetPage(qb, query, newestFirst<CatalogItemEntity>('ci'));
  }

  /** Takes an item off sale (kept: past orders name it). Already off sale → unchanged, original reason kept. */
  async takeOffSale(id: string, reason: OffSaleReason): Promise<CatalogItemEntity> {
    if (!isUuid(id)) throw AppException.notFound('Catalogue item');
    const rows = await this.queryRows<Record<string, unknown>>(
      `UPDATE catalog_items SET
         off_sale_reason = CASE WHEN status = 'ON_SALE' THEN $3 ELSE off_sale_reason END,
         updated_at = CASE WHEN status = 'ON_SALE' THEN now() ELSE updated_at END,
         status = 'OFF_SALE'
       WHERE workspace_id = $1 AND id = $2
       RETURNING *`,
      [id, reason],
    );
    await this.afterWrite();
    const row = rows[0];
    if (!row) throw AppException.notFound('Catalogue item');
    return this.fromRaw(row);
  }

  /**
   * The feed's one set-based upsert (DESIGN §12): every item in one INSERT … SELECT FROM
   * jsonb_to_recordset … ON CONFLICT (workspace_id, external_id) DO UPDATE. The per-row mask of sent
   * fields travels in `sent_fields`, so an existing item changes only where a field was sent (a sent
   * null clears it; an omitted field is left alone). Rows go in id order, so two concurrent requests
   * lock the same rows in the same order; the unique key makes a duplicate impossible. An item the
   * feed took off sale comes back on sale; one taken off sale by hand stays off sale.
   * Returns each external id with whether it was inserted (`xmax = 0`).
   */
  async feedUpsert(rows: readonly FeedRow[]): Promise<{ externalId: string; inserted: boolean }[]> {
    const mask = 'EXCLUDED.sent_fields';
    const result = await this.queryRows<{ external_id: string; inserted: boolean }>(
      `INSERT INTO catalog_items AS c
         (workspace_id, external_id, name, price, currency, description, sku, category, stock, images, source, status, sent_fields)
       SELECT $1, x.external_id, x.name, x.price, x.currency, x.description, x.sku, x.category, x.stock,
              COALESCE(x.images, '{}'), 'FEED', 'ON_SALE', x.sent
       FROM jsonb_to_recordset($2::jsonb) AS x(
         external_id text, name text, price jsonb, currency text, description text, sku text, category text,
         stock integer, images text[], sent text[])
       ORDER BY x.external_id
       ON CONFLICT (workspace_id, external_id) DO UPDATE SET
         ${onlySent('name', 'name', mask, 'EXCLUDED.name', 'c.name')},
         ${onlySent('price', 'price', mask, 'EXCLUDED.price', 'c.price')},
         ${onlySent('currency', 'currency', mask, 'EXCLUDED.currency', 'c.currency')},
         ${onlySent('description', 'description', mask, 'EXCLUDED.description', 'c.description')},
         ${onlySent('sku', 'sku', mask, 'EXCLUDED.sku', 'c.sku')},
         ${onlySent('category', 'category', mask, 'EXCLUDED.category', 'c.category')},
         ${onlySent('stock', 'stock', mask, 'EXCLUDED.stock', 'c.stock')},
         ${onlySent('images', 'images', mask, 'EXCLUDED.images', 'c.images')},
         status = CASE WHEN c.off_sale_reason = 'FEED' THEN 'ON_SALE' ELSE c.status END,
         off_sale_reason = CASE WHEN c.off_sale_reason = 'FEED' THEN NULL ELSE c.off_sale_reason END,
         sent_fields = EXCLUDED.sent_fields,
         updated_at = now()
       RETURNING c.external_id, (c.xmax = 0) AS inserted`,
      [JSON.stringify(rows)],
    );
    await this.afterWrite();
    return result.map((r) => ({ externalId: r.external_id, inserted: r.inserted }));
  }

  /** The feed's DELETE: off sale by the caller's own id; false when no such item. */
  async feedTakeOffSale(externalId: string): Promise<boolean> {
    const rows = await this.queryRows<{ id: string }>(
      `UPDATE catalog_items SET
         off_sale_reason = CASE WHEN status = 'ON_SALE' THEN 'FEED' ELSE off_sale_reason END,
         updated_at = CASE WHEN status = 'ON_SALE' THEN now() ELSE updated_at END,
         status = 'OFF_SALE'
       WHERE workspace_id = $1 AND external_id = $2
       RETURNING id`,
      [externalId],
    );
    await this.afterWrite();
    return rows.length > 0;
  }

  /**
   * One CSV batch in one statement: each row is matched to an existing item by id, then SKU, then
   * exact name (SKU and name only reach items without a different id of their own), matched items
   * get the fields whose cells were filled, the rest are created (ON CONFLICT on the id guards a
   * concurrent creator). The caller makes sure no two rows of a batch share an id, SKU or name.
   */
  async importBatch(rows: readonly ImportRow[]): Promise<ImportBatchResult> {
    const m = 'm.sent';
    const e = 'EXCLUDED.sent_fields';
    const result = await this.queryRows<{ updated: number; created: number; raced: number; nameless: number[] }>(
      `WITH input AS (
         SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(
           ord integer, external_id text, name text, price jsonb, currency text, description text, sku text,
           category text, stock integer, images text[], keywords text[], sent text[])
       ),
       matched AS (
         SELECT i.*, COALESCE(
           (SELECT c.id FROM catalog_items c
             WHERE c.workspace_id = $1 AND i.external_id IS NOT NULL AND c.external_id = i.external_id),
           (SELECT c.id FROM catalog_items c
             WHERE c.workspace_id = $1 AND i.sku IS NOT NULL AND c.sku = i.sku
               AND (i.external_id IS NULL OR c.external_id IS NULL)
             ORDER BY (c.status = 'ON_SALE') DESC, c.created_at, c.id LIMIT 1),
           (SELECT c.id FROM catalog_items c
             WHERE c.workspace_id = $1 AND i.name IS NOT NULL AND c.name = i.name
               AND (i.external_id IS NULL OR c.external_id IS NULL)
             ORDER BY (c.status = 'ON_SALE') DESC, c.created_at, c.id LIMIT 1)
         ) AS item_id
         FROM input i
       ),
       updated AS (
         UPDATE catalog_items c SET
           external_id = COALESCE(c.external_id, m.external_id),
           ${onlySent('name', 'name', m, 'm.name', 'c.name')},
           ${onlySent('price', 'price', m, 'm.price', 'c.price')},
           ${onlySent('currency', 'currency', m, 'm.currency', 'c.currency')},
           ${onlySent('description', 'description', m, 'm.description', 'c.description')},
           ${onlySent('sku', 'sku', m, 'm.sku', 'c.sku')},
           ${onlySent('category', 'category', m, 'm.category', 'c.category')},
           ${onlySent('stock', 'stock', m, 'm.stock', 'c.stock')},
           ${onlySent('images', 'images', m, 'm.images', 'c.images')},
           ${onlySent('keywords', 'keywords', m, 'm.keywords', 'c.keywords')},
           sent_fields = m.sent,
           updated_at = now()
         FROM (SELECT DISTINCT ON (item_id) * FROM matched WHERE item_id IS NOT NULL ORDER BY item_id, ord DESC) m
         -- The ids as an array too: the items are found by primary key, not by a join that reads every
         -- item of the workspace once per batch (a cost that grew with the catalogue, quadratic over an import).
         WHERE c.workspace_id = $1 AND c.id = m.item_id
           AND c.id = ANY (ARRAY(SELECT item_id FROM matched WHERE item_id IS NOT NULL))
         RETURNING c.id
       ),
       -- (a data-modifying CTE always runs to completion, whether or not the final SELECT reads it)
       inserted AS (
         INSERT INTO catalog_items AS c
           (workspace_id, external_id, name, price, currency, description, sku, category, stock, images, keywords, source, status, sent_fields)
         SELECT $1, m.external_id, m.name, m.price, m.currency, m.description, m.sku, m.category, m.stock,
                COALESCE(m.images, '{}'), COALESCE(m.keywords, '{}'), 'CSV', 'ON_SALE', m.sent
         FROM matched m
         WHERE m.item_id IS NULL AND m.name IS NOT NULL
         ORDER BY m.ord
         ON CONFLICT (workspace_id, external_id) DO UPDATE SET
           ${onlySent('name', 'name', e, 'EXCLUDED.name', 'c.name')},
           ${onlySent('price', 'price', e, 'EXCLUDED.price', 'c.price')},
           ${onlySent('currency', 'currency', e, 'EXCLUDED.currency', 'c.currency')},
           ${onlySent('description', 'description', e, 'EXCLUDED.description', 'c.description')},
           ${onlySent('sku', 'sku', e, 'EXCLUDED.sku', 'c.sku')},
           ${onlySent('category', 'category', e, 'EXCLUDED.category', 'c.category')},
           ${onlySent('stock', 'stock', e, 'EXCLUDED.stock', 'c.stock')},
           ${onlySent('images', 'images', e, 'EXCLUDED.images', 'c.images')},
           ${onlySent('keywords', 'keywords', e, 'EXCLUDED.keywords', 'c.keywords')},
           sent_fields = EXCLUDED.sent_fields,
           updated_at = now()
         RETURNING (c.xmax = 0) AS fresh
       )
       SELECT
         (SELECT count(*) FROM matched WHERE item_id IS NOT NULL)::int AS updated,
         (SELECT count(*) FROM inserted WHERE fresh)::int AS created,
         (SELECT count(*) FROM inserted WHERE NOT fresh)::int AS raced,
         COALESCE((SELECT array_agg(ord ORDER BY ord) FROM matched WHERE item_id IS NULL AND name IS NULL), '{}') AS nameless`,
      [JSON.stringify(rows)],
    );
    await this.afterWrite();
    const row = result[0] ?? { updated: 0, created: 0, raced: 0, nameless: [] };
    return { created: row.created, updated: row.updated + row.raced, namelessRows: row.nameless };
  }

  /** The synced items of one website, locked until the run's transaction ends. */
  async lockWebsiteItems(websiteId: string): Promise<ExistingWebsiteItem[]> {
    const rows = await this.queryRows<{
      id: string;
      website_product_id: string;
      name: string | null;
      price: CatalogPrice | null;
      synced_price: CatalogPrice | null;
      currency: string | null;
      description: string | null;
      sku: string | null;
      category: string | null;
      stock: number | null;
      images: string[];
      status: CatalogItemStatus;
      off_sale_reason: OffSaleReason | null;
      notice: string | null;
    }>(
      `SELECT id, website_product_id, name, price, synced_price, currency, description, sku, category, stock, images,
              status, off_sale_reason, notice
       FROM catalog_items WHERE workspace_id = $1 AND website_id = $2
       ORDER BY id
       FOR UPDATE`,
      [websiteId],
    );
    return rows.map((r) => ({
      id: r.id,
      websiteProductId: r.website_product_id,
      name: r.name,
      price: r.price,
      syncedPrice: r.synced_price,
      currency: r.currency,
      description: r.description,
      sku: r.sku,
      category: r.category,
      stock: r.stock,
      images: r.images,
      status: r.status,
      offSaleReason: r.off_sale_reason,
      notice: r.notice,
    }));
  }

  /** Creates and updates synced items set-based (a few thousand rows per statement). Keywords are never touched. */
  async upsertWebsiteItems(websiteId: string, rows: readonly WebsiteItemRow[]): Promise<void> {
    for (let start = 0; start < rows.length; start += WEBSITE_WRITE_CHUNK) {
      const chunk = rows.slice(start, start + WEBSITE_WRITE_CHUNK);
      await this.query(
        `INSERT INTO catalog_items AS c
           (workspace_id, website_id, website_product_id, name, price, synced_price, currency, description, sku, category,
            stock, images, status, off_sale_reason, notice, source)
         SELECT $1, $2, x.website_product_id, x.name, x.price, x.synced_price, x.currency, x.description, x.sku, x.category,
                x.stock, COALESCE(x.images, '{}'), x.status, x.off_sale_reason, x.notice, 'WEBSITE'
         FROM jsonb_to_recordset($3::jsonb) AS x(
           website_product_id text, name text, price jsonb, synced_price jsonb, currency text, description text, sku text,
           category text, stock integer, images text[], status text, off_sale_reason text, notice text)
         ON CONFLICT (workspace_id, website_id, website_product_id) DO UPDATE SET
           name = EXCLUDED.name, price = EXCLUDED.price, synced_price = EXCLUDED.synced_price,
           currency = EXCLUDED.currency, description = EXCLUDED.description, sku = EXCLUDED.sku,
           category = EXCLUDED.category, stock = EXCLUDED.stock, images = EXCLUDED.images,
           status = EXCLUDED.status, off_sale_reason = EXCLUDED.off_sale_reason, notice = EXCLUDED.notice,
           updated_at = now()`,
        [websiteId, JSON.stringify(chunk)],
      );
    }
    await this.afterWrite();
  }

  /** Products that left the website: off sale (reason WEBSITE, so a reappearance restores them). */
  async takeWebsiteItemsOffSale(websiteId: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.query(
      `UPDATE catalog_items SET status = 'OFF_SALE', off_sale_reason = 'WEBSITE', updated_at = now()
       WHERE workspace_id = $1 AND website_id = $2 AND id = ANY($3::uuid[]) AND status = 'ON_SALE'`,
      [websiteId, ids],
    );
    await this.afterWrite();
  }
}
