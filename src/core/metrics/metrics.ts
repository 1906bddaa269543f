import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The service's Prometheus registry (one per process; GET /metrics serves it). */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'sis_' });

export const httpDuration = new Histogram({
  name: 'sis_http_request_duration_seconds',
  help: 'HTTP request latency by method, route template and status code',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const jobDuration = new Histogram({
  name: 'sis_job_duration_seconds',
  help: 'Job run time by job name and result (completed, failed); each attempt counts',
  labelNames: ['job', 'result'] as const,
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [metricsRegistry],
});

export const jobFallbacks = new Counter({
  name: 'sis_job_inline_fallbacks_total',
  help: 'Jobs Redis did not accept that ran in-process instead',
  registers: [metricsRegistry],
});

/** Filled on each scrape by MetricsCollector (database and queue state, shared by all processes). */
export const queueDepth = new Gauge({
  name: 'sis_queue_jobs',
  help: 'Jobs per queue and state (BullMQ counts, or pending in-process jobs as queue "inline")',
  labelNames: ['queue', 'state'] as const,
  registers: [metricsRegistry],
});

export const inboundEvents = new Gauge({
  name: 'sis_inbound_events',
  help: 'Stored inbound webhook events by status (RECEIVED, PROCESSING, PROCESSED, FAILED, …)',
  labelNames: ['status'] as const,
  registers: [metricsRegistry],
});

export const outboundMessages = new Gauge({
  name: 'sis_outbound_messages',
  help: 'Outbound messages by delivery status (PENDING, SENT, DELIVERED, READ, FAILED, …)',
  labelNames: ['status'] as const,
  registers: [metricsRegistry],
});

/**
 * Every SQL statement this process sent (counted by the DataSource's logger, StatementCountingLogger).
 * A cost that does not depend on the machine's load: the bench reads it around one request
 * ("statements per feed upsert", "rows per statement" of a CSV commit).
 */
export const dbStatements = new Counter({
  name: 'sis_db_statements_total',
  help: 'SQL statements sent to the database by this process',
  registers: [metricsRegistry],
});
