import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { CatalogItemsRepository, type FeedRow } from './catalog-items.repository';
import {
  FEED_FIELDS,
  type FeedDeleteResponse,
  type FeedItemDto,
  type FeedUpsertInput,
  type FeedUpsertResponse,
} from './dto/feed.dto';

/** Attempts of the upsert transaction when PostgreSQL reports a deadlock or serialization failure. */
const UPSERT_ATTEMPTS = 3;

function toFeedRow(item: FeedItemDto): FeedRow {
  return {
    external_id: item.id,
    name: item.name ?? null,
    price: item.price ?? null,
    currency: item.currency ?? null,
    description: item.description ?? null,
    sku: item.sku ?? null,
    category: item.category ?? null,
    stock: item.stock ?? null,
    images: item.images ?? null,
    sent: FEED_FIELDS.filter((field) => item[field] !== undefined),
  };
}

/** The API feed (SPEC §4): bulk create-or-update by the caller's own ids, and take off sale. */
@Injectable()
export class CatalogFeedService {
  constructor(
    private readonly items: CatalogItemsRepository,
    private readonly tx: TransactionHost,
  ) {}

  /** One transaction, one set-based upsert; the body was validated as a whole before (nothing saved on any error). */
  async upsert(_ctx: TenantContext, dto: FeedUpsertInput): Promise<FeedUpsertResponse> {
    const rows = dto.items.map(toFeedRow);
    const results = await this.tx.runWithRetry(() => this.items.feedUpsert(rows), UPSERT_ATTEMPTS);
    const inserted = new Map(results.map((r) => [r.externalId, r.inserted]));
    const items = dto.items.map((item) => ({
      id: item.id,
      status: inserted.get(item.id) ? ('created' as const) : ('updated' as const),
    }));
    const created = items.filter((i) => i.status === 'created').length;
    return { created, updated: items.length - created, items };
  }

  async takeOffSale(_ctx: TenantContext, externalId: string): Promise<FeedDeleteResponse> {
    if (!(await this.items.feedTakeOffSale(externalId))) throw AppException.notFound('Catalogue item');
    return { id: externalId, status: 'OFF_SALE' };
  }
}
