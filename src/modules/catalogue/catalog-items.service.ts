import { Injectable } from '@nestjs/common';
import { isUniqueViolation } from 'src/core/database/pg-errors';
import { AppException } from 'src/core/errors/app.exception';
import { type Page, mapPage } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { CatalogItemEntity } from './catalog-item.entity';
import { CatalogItemsRepository } from './catalog-items.repository';
import {
  type CatalogItemResponse,
  type CreateCatalogItemDto,
  type ListCatalogItemsQuery,
  type UpdateCatalogItemDto,
  toCatalogItemResponse,
} from './dto/catalog-item.dto';

type ItemPatch = Omit<Partial<CatalogItemEntity>, 'id' | 'workspaceId'>;

/** Items by hand: list, read, create, edit, take off sale (never deleted: past orders still name them). */
@Injectable()
export class CatalogItemsService {
  constructor(private readonly items: CatalogItemsRepository) {}

  async list(_ctx: TenantContext, query: ListCatalogItemsQuery): Promise<Page<CatalogItemResponse>> {
    return mapPage(await this.items.findPage(query), toCatalogItemResponse);
  }

  async get(_ctx: TenantContext, id: string): Promise<CatalogItemResponse> {
    return toCatalogItemResponse(await this.items.getById(id));
  }

  async create(_ctx: TenantContext, dto: CreateCatalogItemDto): Promise<CatalogItemResponse> {
    const row = await this.uniqueExternalId(dto.externalId, () =>
      this.items.insert({
        externalId: dto.externalId ?? null,
        name: dto.name,
        price: dto.price ?? null,
        currency: dto.currency ?? null,
        description: dto.description ?? null,
        sku: dto.sku ?? null,
        category: dto.category ?? null,
        stock: dto.stock ?? null,
        images: dto.images ?? [],
        keywords: dto.keywords ?? [],
        source: 'MANUAL',
        status: 'ON_SALE',
      }),
    );
    return toCatalogItemResponse(row);
  }

  /**
   * Only the fields sent change (null clears). Any edit clears the item's `notice` (it has been seen).
   * A price edited on a synced item stays until the next sync replaces it (and says so in `notice`).
   */
  async update(_ctx: TenantContext, id: string, dto: UpdateCatalogItemDto): Promise<CatalogItemResponse> {
    const patch: ItemPatch = { notice: null };
    if (dto.externalId !== undefined) patch.externalId = dto.externalId;
    if (dto.name !== undefined) patch.name = dto.name;
    if (dto.price !== undefined) patch.price = dto.price;
    if (dto.currency !== undefined) patch.currency = dto.currency;
    if (dto.description !== undefined) patch.description = dto.description;
    if (dto.sku !== undefined) patch.sku = dto.sku;
    if (dto.category !== undefined) patch.category = dto.category;
    if (dto.stock !== undefined) patch.stock = dto.stock;
    if (dto.images !== undefined) patch.images = dto.images ?? [];
    if (dto.keywords !== undefined) patch.keywords = dto.keywords ?? [];
    if (dto.status !== undefined) {
      patch.status = dto.status;
      patch.offSaleReason = dto.status === 'OFF_SALE' ? 'MANUAL' : null;
    }
    const row = await this.uniqueExternalId(dto.externalId, () => this.items.updateById(id, patch));
    return toCatalogItemResponse(row);
  }

  /** DELETE /catalog/:id: off sale by hand (a feed or sync never brings it back by itself). */
  async takeOffSale(_ctx: TenantContext, id: string): Promise<CatalogItemResponse> {
    return toCatalogItemResponse(await this.items.takeOffSale(id, 'MANUAL'));
  }

  private async uniqueExternalId<T>(externalId: string | null | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (isUniqueViolation(error) && externalId) {
        throw AppException.conflict(`Another item already has externalId "${externalId}"`);
      }
      throw error;
    }
  }
}
