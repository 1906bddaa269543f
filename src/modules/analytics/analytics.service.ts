import { Injectable } from '@nestjs/common';
import { AppException } from 'src/core/errors/app.exception';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ANALYTICS_SOURCES, WIDGET_SHAPES, WIDGET_TYPES } from './analytics-meta';
import { AnalyticsRepository } from './analytics.repository';
import type {
  AnalyticsAiResponse,
  AnalyticsInboxResponse,
  AnalyticsQuery,
  AnalyticsSummaryResponse,
  AnalyticsTicketsResponse,
  AnalyticsWindow,
  AnalyticsWorkforceResponse,
} from './dto/analytics-query.dto';
import type { AnalyticsMetaResponse } from './dto/analytics-meta.dto';

export const MAX_BUCKETS = 2000;
const DEFAULT_DAYS = 30;
const UNIT_MS = { HOUR: 3_600_000, DAY: 86_400_000, WEEK: 7 * 86_400_000 } as const;
const TICKET_STATUSES = ['OPEN', 'IN_PROGRESS', 'WAITING', 'RESOLVED', 'CLOSED'];
const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'URGENT'];

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const iso = (v: unknown): string => (v instanceof Date ? v : new Date(String(v))).toISOString();

/**
 * `GET /analytics/*` (DESIGN §11, §14): validates the window, then maps the read model's rows to
 * the contract's shapes. Figures with no data are null (averages, rates), counts are 0.
 */
@Injectable()
export class AnalyticsService {
  constructor(private readonly analytics: AnalyticsRepository) {}

  /** `from < to`, ISO dates (the DTO), at most 2,000 buckets of the interval. */
  window(query: AnalyticsQuery): AnalyticsWindow {
    const to = query.to ? new Date(query.to) : new Date();
    const from = query.from ? new Date(query.from) : new Date(to.getTime() - DEFAULT_DAYS * 86_400_000);
    const interval = query.interval ?? 'DAY';
    if (from.getTime() >= to.getTime()) throw AppException.field('from', 'must be before to');
    const buckets = Math.ceil((to.getTime() - from.getTime()) / UNIT_MS[interval]);
    if (buckets > MAX_BUCKETS) {
      throw AppException.field('interval', `gives ${buckets} buckets for this window; at most ${MAX_BUCKETS}`);
    }
    return { from, to, interval, channelId: query.channelId ?? null, queueId: query.queueId ?? null };
  }

  async summary(_ctx: TenantContext, query: AnalyticsQuery): Promise<AnalyticsSummaryResponse> {
    const w = this.window(query);
    const r = await this.analytics.inWorkspaceZone(() => this.analytics.summary(w));
    return {
      from: w.from.toISOString(),
      to: w.to.toISOString(),
      conversations: { total: num(r.total), new: num(r.new), open: num(r.open), resolved: num(r.resolved) },
      messages: { inbound: num(r.inbound), outbound: num(r.outbound) },
      firstResponse: { averageSeconds: numOrNull(r.fr_avg), medianSeconds: numOrNull(r.fr_median) },
      resolution: { averageSeconds: numOrNull(r.res_avg) },
      csat: { average: numOrNull(r.csat_average), responses: num(r.csat_responses) },
      sla: { complianceRate: numOrNull(r.sla_rate) },
      tickets: { created: num(r.tickets_created), resolved: num(r.tickets_resolved), open: num(r.tickets_open) },
    };
  }

  async inbox(_ctx: TenantContext, query: AnalyticsQuery): Promise<AnalyticsInboxResponse> {
    const w = this.window(query);
    const rows = await this.analytics.inWorkspaceZone(() => this.analytics.inbox(w));
    const series = rows.filter((r) => r.kind === 'series');
    const byChannel = rows.filter((r) => r.kind === 'channel');
    return {
      from: w.from.toISOString(),
      to: w.to.toISOString(),
      interval: w.interval,
      series: series.map((r) => ({
        bucket: iso(r.bucket),
        conversations: num(r.conversations),
        inbound: num(r.inbound),
        outbound: num(r.outbound),
        resolved: num(r.resolved),
      })),
      byChannel: byChannel.map((r) => ({
        channelType: String(r.channel_type),
        conversations: num(r.conversations),
        inbound: num(r.inbound),
      })),
    };
  }

  async tickets(_ctx: TenantContext, query: AnalyticsQuery): Promise<AnalyticsTicketsResponse> {
    const w = this.window(query);
    const [series, breakdown] = await this.analytics.inWorkspaceZone(
      async () => [await this.analytics.ticketSeries(w), await this.analytics.ticketBreakdown(w)] as const,
    );
    const byStatus = Object.fromEntries(TICKET_STATUSES.map((k) => [k, 0]));
    const byPriority = Object.fromEntries(PRIORITIES.map((k) => [k, 0]));
    for (const row of breakdown) (row.dimension === 'status' ? byStatus : byPriority)[row.value] = num(row.n);
    return {
      from: w.from.toISOString(),
      to: w.to.toISOString(),
      interval: w.interval,
      series: series.map((r) => ({ bucket: iso(r.bucket), created: num(r.created), resolved: num(r.resolved) })),
      byStatus,
      byPriority,
    };
  }

  async workforce(_ctx: TenantContext, query: AnalyticsQuery): Promise<AnalyticsWorkforceResponse> {
    const w = this.window(query);
    const rows = await this.analytics.inWorkspaceZone(() => this.analytics.workforce(w));
    return {
      from: w.from.toISOString(),
      to: w.to.toISOString(),
      agents: rows.map((r) => ({
        userId: String(r.user_id),
        name: String(r.name),
        presence: String(r.presence),
        onlineSeconds: num(r.online_seconds),
        assigned: num(r.assigned),
        resolved: num(r.resolved),
        averageFirstResponseSeconds: numOrNull(r.average_first_response_seconds),
        openNow: num(r.open_now),
      })),
    };
  }

  async ai(_ctx: TenantContext, query: AnalyticsQuery): Promise<AnalyticsAiResponse> {
    const w = this.window(query);
    const rows = await this.analytics.inWorkspaceZone(() => this.analytics.ai(w));
    const totals = rows.find((r) => r.kind === 'totals')!;
    const series = rows.filter((r) => r.kind === 'series');
    return {
      from: w.from.toISOString(),
      to: w.to.toISOString(),
      interval: w.interval,
      replies: num(totals.replies),
      handoffs: num(totals.handoffs),
      conversationsWithAi: num(totals.conversations_with_ai),
      resolvedWithoutHuman: num(totals.resolved_without_human),
      automatedResolutionRate: numOrNull(totals.rate),
      series: series.map((r) => ({ bucket: iso(r.bucket), replies: num(r.s_replies), handoffs: num(r.s_handoffs) })),
    };
  }

  meta(): AnalyticsMetaResponse {
    return {
      interval: ['HOUR', 'DAY', 'WEEK'],
      maxBuckets: MAX_BUCKETS,
      filters: ['from', 'to', 'interval', 'channelId', 'queueId'],
      widgetTypes: WIDGET_TYPES.map((type) => ({ type, shapes: [...WIDGET_SHAPES[type]] })),
      sources: ANALYTICS_SOURCES.map((src) => ({
        key: src.key,
        path: src.path,
        description: src.description,
        metrics: src.metrics.map((m) => ({ ...m })),
      })),
    };
  }
}
