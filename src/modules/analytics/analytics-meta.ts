/**
 * What the analytics endpoints really produce, for dashboard widgets (`GET /analytics/meta`). A
 * widget names a `source` (an endpoint) and a `metric` (a path into its answer); its `type` must
 * suit the metric's shape. Dashboards are validated against this list, and the e2e test checks each
 * listed metric exists in the endpoint's answer.
 */
export const WIDGET_TYPES = ['METRIC', 'TIMESERIES', 'TABLE', 'BAR'] as const;
export type WidgetType = (typeof WIDGET_TYPES)[number];

/** `value`: one number; `series`: per bucket; `breakdown`: per key (channel, status, agent). */
export type MetricShape = 'value' | 'series' | 'breakdown';
export type MetricUnit = 'count' | 'seconds' | 'rate' | 'score';

export interface MetricDefinition {
  readonly key: string;
  readonly description: string;
  readonly shape: MetricShape;
  readonly unit: MetricUnit;
}

export interface SourceDefinition {
  readonly key: string;
  readonly path: string;
  readonly description: string;
  readonly metrics: readonly MetricDefinition[];
}

const v = (key: string, unit: MetricUnit, description: string): MetricDefinition => ({
  key,
  description,
  shape: 'value',
  unit,
});
const s = (key: string, description: string): MetricDefinition => ({
  key,
  description,
  shape: 'series',
  unit: 'count',
});
const b = (key: string, unit: MetricUnit, description: string): MetricDefinition => ({
  key,
  description,
  shape: 'breakdown',
  unit,
});

export const ANALYTICS_SOURCES: readonly SourceDefinition[] = [
  {
    key: 'summary',
    path: '/analytics/summary',
    description: 'Totals of the window',
    metrics: [
      v('conversations.total', 'count', 'Conversations open at some time in the window'),
      v('conversations.new', 'count', 'Conversations created in the window'),
      v('conversations.open', 'count', 'Conversations not resolved at the end of the window'),
      v('conversations.resolved', 'count', 'Conversations resolved in the window'),
      v('messages.inbound', 'count', 'Messages received'),
      v('messages.outbound', 'count', 'Messages sent'),
      v('firstResponse.averageSeconds', 'seconds', 'Mean time to first response'),
      v('firstResponse.medianSeconds', 'seconds', 'Median time to first response'),
      v('resolution.averageSeconds', 'seconds', 'Mean time to resolution'),
      v('csat.average', 'score', 'Mean CSAT score (1–5)'),
      v('csat.responses', 'count', 'CSAT ratings received'),
      v('sla.complianceRate', 'rate', 'SLA targets met / decided'),
      v('tickets.created', 'count', 'Tickets created'),
      v('tickets.resolved', 'count', 'Tickets resolved'),
      v('tickets.open', 'count', 'Tickets open at the end of the window'),
    ],
  },
  {
    key: 'inbox',
    path: '/analytics/inbox',
    description: 'Inbox volume per bucket and per channel type',
    metrics: [
      s('series.conversations', 'Conversations created per bucket'),
      s('series.inbound', 'Messages received per bucket'),
      s('series.outbound', 'Messages sent per bucket'),
      s('series.resolved', 'Conversations resolved per bucket'),
      b('byChannel.conversations', 'count', 'Conversations created per channel type'),
      b('byChannel.inbound', 'count', 'Messages received per channel type'),
    ],
  },
  {
    key: 'tickets',
    path: '/analytics/tickets',
    description: 'Tickets per bucket, status and priority',
    metrics: [
      s('series.created', 'Tickets created per bucket'),
      s('series.resolved', 'Tickets resolved per bucket'),
      b('byStatus', 'count', 'Tickets created in the window by current status'),
      b('byPriority', 'count', 'Tickets created in the window by priority'),
    ],
  },
  {
    key: 'workforce',
    path: '/analytics/workforce',
    description: 'Per agent',
    metrics: [
      b('agents.onlineSeconds', 'seconds', 'Seconds ONLINE in the window'),
      b('agents.assigned', 'count', 'Conversations assigned in the window'),
      b('agents.resolved', 'count', 'Conversations resolved in the window'),
      b('agents.averageFirstResponseSeconds', 'seconds', 'Mean first response of their conversations'),
      b('agents.openNow', 'count', 'Open conversations now'),
    ],
  },
  {
    key: 'ai',
    path: '/analytics/ai',
    description: 'AI agent replies, handoffs and automated resolutions',
    metrics: [
      v('replies', 'count', 'AI replies sent'),
      v('handoffs', 'count', 'Handoffs to a human'),
      v('conversationsWithAi', 'count', 'Conversations with an AI reply'),
      v('resolvedWithoutHuman', 'count', 'Resolved with no agent message and no handoff'),
      v('automatedResolutionRate', 'rate', 'Share of AI-answered resolutions without a human'),
      s('series.replies', 'AI replies per bucket'),
      s('series.handoffs', 'Handoffs per bucket'),
    ],
  },
];

/** Which widget types can show a metric of each shape (a TABLE shows anything). */
export const WIDGET_SHAPES: Readonly<Record<WidgetType, readonly MetricShape[]>> = {
  METRIC: ['value'],
  TIMESERIES: ['series'],
  BAR: ['series', 'breakdown'],
  TABLE: ['value', 'series', 'breakdown'],
};

export function findMetric(source: string, metric: string): MetricDefinition | null {
  return ANALYTICS_SOURCES.find((src) => src.key === source)?.metrics.find((m) => m.key === metric) ?? null;
}
