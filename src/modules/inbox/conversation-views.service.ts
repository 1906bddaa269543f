import { Injectable } from '@nestjs/common';
import { AppException } from 'src/core/errors/app.exception';
import { type CursorPaginationQuery, type Page, mapPage } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { ConversationViewEntity, ConversationViewFilters } from './conversation-view.entity';
import { ConversationViewsRepository } from './conversation-views.repository';
import type { CreateConversationViewDto, ConversationViewResponse } from './dto/conversation-view.dto';
import type { ConversationFiltersQuery } from './dto/list-conversations.query';

/**
 * Saved inbox views (DESIGN §5.1). Personal views are visible to their creator only; shared views to
 * the whole workspace. Creating a shared view needs `conversations.views`; deleting one needs to be
 * its creator or to hold `conversations.views`. Someone else's personal view is 404.
 */
@Injectable()
export class ConversationViewsService {
  constructor(private readonly views: ConversationViewsRepository) {}

  async list(ctx: TenantContext, query: CursorPaginationQuery): Promise<Page<ConversationViewResponse>> {
    return mapPage(await this.views.findVisiblePage(ctx.actor.userId, query), toViewResponse);
  }

  async create(ctx: TenantContext, dto: CreateConversationViewDto): Promise<ConversationViewResponse> {
    const shared = dto.shared ?? false;
    if (shared && !ctx.permissions.has('conversations.views')) {
      throw AppException.forbidden('Creating a shared view needs the conversations.views permission');
    }
    if (!shared && !ctx.actor.userId) throw AppException.field('shared', 'must be true for an API token');
    const view = await this.views.insert({
      name: dto.name,
      filters: savedFilters(dto.filters),
      shared,
      createdBy: ctx.actor.userId,
    });
    return toViewResponse(view);
  }

  async remove(ctx: TenantContext, id: string): Promise<void> {
    const view = await this.views.findVisible(ctx.actor.userId, id);
    if (!view) throw AppException.notFound('View');
    const isCreator = view.createdBy !== null && view.createdBy === ctx.actor.userId;
    if (!isCreator && !(view.shared && ctx.permissions.has('conversations.views'))) {
      throw AppException.forbidden(
        'Only its creator (or, for a shared view, conversations.views) can delete this view',
      );
    }
    await this.views.deleteById(view.id);
  }

  /** The filters of a view the caller may see (`GET /conversations?viewId=`); 404 otherwise. */
  async filtersOf(ctx: TenantContext, id: string): Promise<ConversationViewFilters> {
    const view = await this.views.findVisible(ctx.actor.userId, id);
    if (!view) throw AppException.notFound('View');
    return view.filters;
  }
}

/** Only the filters that were given (a view stores no empty keys). */
function savedFilters(f: ConversationFiltersQuery): ConversationViewFilters {
  return {
    ...(f.status?.length ? { status: [...new Set(f.status)] } : {}),
    ...(f.priority?.length ? { priority: [...new Set(f.priority)] } : {}),
    ...(f.queueId ? { queueId: f.queueId } : {}),
    ...(f.assigneeId ? { assigneeId: f.assigneeId } : {}),
    ...(f.channelId ? { channelId: f.channelId } : {}),
    ...(f.tag ? { tag: f.tag } : {}),
    ...(f.search ? { search: f.search } : {}),
  };
}

function toViewResponse(v: ConversationViewEntity): ConversationViewResponse {
  return {
    id: v.id,
    name: v.name,
    filters: v.filters,
    shared: v.shared,
    createdBy: v.createdBy,
    createdAt: v.createdAt.toISOString(),
  };
}
