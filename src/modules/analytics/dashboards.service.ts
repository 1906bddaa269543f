import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { AppException, type ErrorDetail } from 'src/core/errors/app.exception';
import { type CursorPaginationQuery, mapPage, type Page } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ANALYTICS_SOURCES, WIDGET_SHAPES, findMetric } from './analytics-meta';
import type { DashboardEntity, StoredWidget } from './dashboard.entity';
import { DashboardsRepository } from './dashboards.repository';
import type { CreateDashboardDto, DashboardResponse, UpdateDashboardDto, WidgetDto } from './dto/dashboard.dto';

function toDashboardResponse(d: DashboardEntity): DashboardResponse {
  return {
    id: d.id,
    name: d.name,
    widgets: d.widgets.map((w) => ({ ...w, options: { ...w.options }, position: { ...w.position } })),
    shared: d.shared,
    ownerId: d.ownerId,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

/**
 * Dashboards (DESIGN §11): widgets are checked against what the analytics endpoints produce
 * (`GET /analytics/meta`): a known source, one of its metrics, a widget type that can show the
 * metric's shape, unique widget ids. Private to the owner unless `shared`; only the owner changes
 * or deletes one (a shared dashboard of someone else is 403, a private one 404). A dashboard made
 * with an API token has no owner and is always shared; any admin caller may change it.
 */
@Injectable()
export class DashboardsService {
  constructor(private readonly dashboards: DashboardsRepository) {}

  async list(ctx: TenantContext, query: CursorPaginationQuery): Promise<Page<DashboardResponse>> {
    return mapPage(await this.dashboards.findVisiblePage(ctx.actor.userId, query), toDashboardResponse);
  }

  async get(ctx: TenantContext, id: string): Promise<DashboardResponse> {
    return toDashboardResponse(await this.visible(ctx, id));
  }

  async create(ctx: TenantContext, dto: CreateDashboardDto): Promise<DashboardResponse> {
    const widgets = this.validWidgets(dto.widgets ?? []);
    const ownerId = ctx.actor.type === 'user' ? ctx.actor.userId : null;
    const created = await this.dashboards.insert({
      name: dto.name,
      shared: ownerId === null ? true : (dto.shared ?? false),
      ownerId,
      widgets,
    });
    return toDashboardResponse(created);
  }

  async update(ctx: TenantContext, id: string, dto: UpdateDashboardDto): Promise<DashboardResponse> {
    const current = await this.owned(ctx, id);
    const updated = await this.dashboards.updateById(current.id, {
      ...(dto.name !== undefined ? { name: dto.name } : {}),
      ...(dto.shared !== undefined && current.ownerId !== null ? { shared: dto.shared } : {}),
      ...(dto.widgets !== undefined ? { widgets: this.validWidgets(dto.widgets) } : {}),
      updatedAt: new Date(),
    });
    return toDashboardResponse(updated);
  }

  async remove(ctx: TenantContext, id: string): Promise<void> {
    const current = await this.owned(ctx, id);
    await this.dashboards.deleteById(current.id);
  }

  private async visible(ctx: TenantContext, id: string): Promise<DashboardEntity> {
    const found = await this.dashboards.findVisible(id, ctx.actor.userId);
    if (!found) throw AppException.notFound('Dashboard');
    return found;
  }

  private async owned(ctx: TenantContext, id: string): Promise<DashboardEntity> {
    const found = await this.visible(ctx, id);
    const mayChange = found.ownerId === null || found.ownerId === ctx.actor.userId || ctx.actor.type === 'api_token';
    if (!mayChange) throw AppException.forbidden('Only the owner can change this dashboard');
    return found;
  }

  private validWidgets(widgets: readonly WidgetDto[]): StoredWidget[] {
    const details: ErrorDetail[] = [];
    const ids = new Set<string>();
    const stored = widgets.map((w, i) => {
      const id = w.id ?? randomUUID();
      if (ids.has(id)) details.push({ field: `widgets.${i}.id`, message: 'must be unique in the dashboard' });
      ids.add(id);
      const source = ANALYTICS_SOURCES.find((s) => s.key === w.source);
      const metric = findMetric(w.source, w.metric);
      if (!source) {
        const known = ANALYTICS_SOURCES.map((s) => s.key).join(', ');
        details.push({ field: `widgets.${i}.source`, message: `must be one of ${known}` });
      } else if (!metric) {
        details.push({
          field: `widgets.${i}.metric`,
          message: `is not a metric of ${w.source} (see GET /analytics/meta)`,
        });
      } else if (!WIDGET_SHAPES[w.type].includes(metric.shape)) {
        details.push({ field: `widgets.${i}.type`, message: `${w.type} cannot show a ${metric.shape} metric` });
      }
      return {
        id,
        type: w.type,
        source: w.source,
        metric: w.metric,
        options: w.options ?? {},
        position: { ...w.position },
      };
    });
    if (details.length) throw AppException.validation(`${details[0]!.field} ${details[0]!.message}`, details);
    return stored;
  }
}
