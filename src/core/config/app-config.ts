import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export type AppRole = 'all' | 'api' | 'worker' | 'cli';

/** How the inbound pipeline yields to webhook acknowledgements (core/queue/pipeline-yield.ts). */
export interface PipelineYieldSettings {
  /** Acks per second at and above which the workers yield; 0 = never. */
  readonly ackRate: number;
  /** Concurrency of a yielding queue's workers while they yield (capped at their full concurrency). */
  readonly concurrency: number;
  /** Longest continuous yield; afterwards the flag is ignored for as long again. */
  readonly maxMs: number;
}
export type WorkspacePlanName = 'STARTER' | 'PRO' | 'ENTERPRISE';

export interface AppConfig {
  readonly env: 'development' | 'production' | 'test';
  readonly port: number;
  readonly role: AppRole;
  /**
   * WORKER_NICE: the CPU priority (nice 0–19) the `worker` role gives itself at start, so its
   * throughput work yields the CPU to the latency work of `api` processes on the same machine
   * (issue 16; docs/performance.md "Session 21: ack latency"). 0 = unchanged. Other roles ignore it.
   */
  readonly workerNice: number;
  /**
   * PIPELINE_YIELD_ACK_RATE / PIPELINE_YIELD_CONCURRENCY / PIPELINE_YIELD_MAX_MS: while an `api`
   * process acknowledges webhook events at least this fast (per second), the workers of the inbound
   * queue run at the lowered concurrency (0, the default: paused), for at most MAX_MS in a row
   * (core/queue/pipeline-yield.ts). BullMQ only; a rate of 0 turns it off.
   */
  readonly pipelineYield: PipelineYieldSettings;
  readonly dataDir: string;
  readonly publicBaseUrl: string;
  readonly logLevel: string;
  readonly db: {
    readonly url: string | null;
    readonly migrationsRun: boolean;
    readonly poolSize: number;
    /**
     * ACK_POOL_SIZE: connections of the webhook acknowledgements' own pool on PostgreSQL (issue 16),
     * so an ack never waits behind other work holding the main pool; 0 = acks use the main pool.
     */
    readonly ackPoolSize: number;
  };
  readonly redis: { readonly url: string | null; readonly prefix: string };
  readonly auth: {
    readonly jwtSecret: string;
    readonly jwtExpiresInSeconds: number;
    readonly signupEnabled: boolean;
    readonly loginRateLimit: { readonly points: number; readonly durationSeconds: number };
    readonly signupRateLimit: { readonly points: number; readonly durationSeconds: number };
    /** Login attempts per client IP over every email (issue 9; the per IP + email limit stays). */
    readonly loginIpRateLimit: { readonly points: number; readonly durationSeconds: number };
    /**
     * scrypt's N for new password hashes: 32768 (password.util.ts, PASSWORD_HASH_COST); 1024 under
     * NODE_ENV=test only, where every e2e test signs up and logs in through the real hashing (~0.1 s of
     * CPU per hash at 32768).
     * Like bcrypt's minimum cost in Rails' tests; never in development or production.
     */
    readonly passwordHashCost: number;
  };
  /** Issue 9: how the client IP is read behind a proxy, and whether /docs is served. */
  readonly http: { readonly trustProxy: boolean | number | string; readonly docsEnabled: boolean };
  /** Timer periods (`*_TICK_MS`); the timers run in the `all` and `worker` roles only. */
  readonly ticks: {
    readonly catalogueSyncMs: number;
    readonly slaCheckMs: number;
    readonly inboundSweepMs: number;
    readonly outboundSweepMs: number;
    /** The inbound recovery sweep re-queues RECEIVED events waiting this long (chaos runs shorten it). */
    readonly inboundStaleReceivedMs: number;
    /** …and releases PROCESSING events held this long by a process that died. */
    readonly inboundStaleProcessingMs: number;
    /** Embedded engine only: how often its autovacuum looks for tables to vacuum or analyse. */
    readonly embeddedMaintenanceMs: number;
  };
  readonly encryptionKey: Buffer;
  readonly bootstrap: {
    readonly adminEmail: string;
    readonly adminPassword: string | null;
    readonly workspaceName: string;
    readonly plan: WorkspacePlanName;
  };
  readonly outbound: {
    readonly allowPrivateNetworks: boolean;
    readonly retryDelaysSeconds: readonly number[];
    readonly webhookRetryDelaysSeconds: readonly number[];
    /** Inbound event processing retries (seconds between attempts; attempts = length + 1). */
    readonly inboundRetryDelaysSeconds: readonly number[];
  };
  readonly platforms: {
    readonly metaAppId: string | null;
    readonly metaAppSecret: string | null;
    readonly metaVerifyToken: string | null;
    readonly metaGraphBaseUrl: string;
    readonly telegramApiBaseUrl: string;
    readonly lineApiBaseUrl: string;
  };
  readonly llm: { readonly baseUrl: string | null; readonly apiKey: string | null; readonly model: string | null };
  /** Console format: `pretty` (pino-pretty) when stdout is a terminal or LOG_FORMAT=pretty, `json` otherwise. */
  readonly logFormat: 'json' | 'pretty';
  /** CORS_ORIGINS: null = CORS off; `*` = any origin; otherwise the allowed origins. */
  readonly corsOrigins: '*' | readonly string[] | null;
  /** METRICS_TOKEN: when set, GET /metrics needs `Authorization: Bearer <token>`. */
  readonly metricsToken: string | null;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

type Env = Record<string, string | undefined>;

const ROLES: readonly AppRole[] = ['all', 'api', 'worker', 'cli'];
export const PLANS: readonly WorkspacePlanName[] = ['STARTER', 'PRO', 'ENTERPRISE'];

/** Reads, validates and completes the configuration from an environment object (never `process.env` directly). */
export function loadConfig(env: Env): AppConfig {
  const problems: string[] = [];
  const nodeEnv = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const production = nodeEnv === 'production';

  const int = (key: string, fallback: number, min: number, max: number): number => {
    const raw = env[key];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${key} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const bool = (key: string, fallback: boolean): boolean => {
    const raw = env[key]?.toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    problems.push(`${key} must be true or false (got "${env[key]}")`);
    return fallback;
  };
  const url = (key: string, fallback: string | null): string | null => {
    const raw = env[key];
    if (raw === undefined || raw === '') return fallback;
    try {
      new URL(raw);
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${key} must be a URL (got "${raw}")`);
      return fallback;
    }
  };
  const delays = (key: string, fallback: number[]): number[] => {
    const raw = env[key];
    if (raw === undefined || raw === '') return fallback;
    const values = raw.split(',').map((part) => Number(part.trim()));
    if (values.length === 0 || values.some((v) => !Number.isFinite(v) || v < 0)) {
      problems.push(`${key} must be comma-separated non-negative seconds (got "${raw}")`);
      return fallback;
    }
    return values;
  };

  const port = int('PORT', 4000, 0, 65535);
  const role = (env.APP_ROLE ?? 'all') as AppRole;
  if (!ROLES.includes(role)) problems.push(`APP_ROLE must be one of ${ROLES.join(', ')} (got "${env.APP_ROLE}")`);
  const plan = (env.BOOTSTRAP_PLAN ?? 'ENTERPRISE').toUpperCase() as WorkspacePlanName;
  if (!PLANS.includes(plan)) problems.push(`BOOTSTRAP_PLAN must be one of ${PLANS.join(', ')}`);

  const dataDir = resolve(env.DATA_DIR || './data');
  const databaseUrl = url('DATABASE_URL', null);
  const redisUrl = url('REDIS_URL', null);

  let jwtSecret = env.JWT_SECRET || null;
  let encryptionKeyRaw = env.ENCRYPTION_KEY || null;
  if (production) {
    if (!jwtSecret) problems.push('JWT_SECRET is required when NODE_ENV=production');
    if (!encryptionKeyRaw) problems.push('ENCRYPTION_KEY is required when NODE_ENV=production');
  }
  let encryptionKey = Buffer.alloc(32);
  if (encryptionKeyRaw) {
    encryptionKey = Buffer.from(encryptionKeyRaw, 'base64');
    if (encryptionKey.length !== 32) problems.push('ENCRYPTION_KEY must be 32 bytes, base64-encoded');
  }
  if (jwtSecret !== null && jwtSecret.length < 16) problems.push('JWT_SECRET must be at least 16 characters');

  const publicBaseUrl = url('PUBLIC_BASE_URL', null) ?? `http://localhost:${port}`;
  const migrationsRun = bool('MIGRATIONS_RUN', true);
  const poolSize = int('DATABASE_POOL_SIZE', 10, 1, 200);
  const workerNice = int('WORKER_NICE', 10, 0, 19);
  const ackPoolSize = int('ACK_POOL_SIZE', 2, 0, 20);
  const pipelineYield = {
    ackRate: int('PIPELINE_YIELD_ACK_RATE', 600, 0, 1_000_000),
    concurrency: int('PIPELINE_YIELD_CONCURRENCY', 0, 0, 1_000),
    maxMs: int('PIPELINE_YIELD_MAX_MS', 15_000, 1_000, 3_600_000),
  };
  const jwtExpiresInSeconds = int('JWT_EXPIRES_IN_SECONDS', 12 * 3600, 60, 30 * 24 * 3600);
  const signupEnabled = bool('SIGNUP_ENABLED', true);
  const signupRateLimit = { points: int('SIGNUP_RATE_LIMIT', 10, 1, 1_000_000), durationSeconds: 3600 };
  const loginRateLimit = {
    points: int('LOGIN_RATE_LIMIT', 10, 1, 100000),
    durationSeconds: int('LOGIN_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86400),
  };
  const loginIpRateLimit = {
    points: int('LOGIN_IP_RATE_LIMIT', 100, 1, 1_000_000),
    durationSeconds: loginRateLimit.durationSeconds,
  };
  const http = { trustProxy: trustProxyOf(env.TRUST_PROXY), docsEnabled: bool('DOCS_ENABLED', !production) };
  const ticks = {
    catalogueSyncMs: int('CATALOGUE_SYNC_TICK_MS', 30_000, 50, 3_600_000),
    slaCheckMs: int('SLA_CHECK_TICK_MS', 30_000, 50, 3_600_000),
    inboundSweepMs: int('INBOUND_SWEEP_TICK_MS', 30_000, 50, 3_600_000),
    outboundSweepMs: int('OUTBOUND_SWEEP_TICK_MS', 30_000, 50, 3_600_000),
    inboundStaleReceivedMs: int('INBOUND_STALE_RECEIVED_MS', 60_000, 1_000, 86_400_000),
    inboundStaleProcessingMs: int('INBOUND_STALE_PROCESSING_MS', 120_000, 5_000, 86_400_000),
    embeddedMaintenanceMs: int('EMBEDDED_MAINTENANCE_TICK_MS', 30_000, 50, 3_600_000),
  };
  const outbound = {
    allowPrivateNetworks: bool('OUTBOUND_ALLOW_PRIVATE_NETWORKS', !production),
    retryDelaysSeconds: delays('OUTBOUND_RETRY_DELAYS', [5, 30, 120, 600, 3600]),
    webhookRetryDelaysSeconds: delays('WEBHOOK_RETRY_DELAYS', [10, 60, 600, 3600, 21600, 86400]),
    inboundRetryDelaysSeconds: delays('INBOUND_RETRY_DELAYS', [5, 30, 120, 600]),
  };
  const platforms = {
    metaAppId: env.META_APP_ID || null,
    metaAppSecret: env.META_APP_SECRET || null,
    metaVerifyToken: env.META_VERIFY_TOKEN || null,
    metaGraphBaseUrl: url('META_GRAPH_BASE_URL', 'https://graph.facebook.com/v21.0') ?? '',
    telegramApiBaseUrl: url('TELEGRAM_API_BASE_URL', 'https://api.telegram.org') ?? '',
    lineApiBaseUrl: url('LINE_API_BASE_URL', 'https://api.line.me') ?? '',
  };
  const llm = { baseUrl: url('LLM_BASE_URL', null), apiKey: env.LLM_API_KEY || null, model: env.LLM_MODEL || null };

  const logFormatRaw = (env.LOG_FORMAT ?? '').toLowerCase();
  if (logFormatRaw && logFormatRaw !== 'json' && logFormatRaw !== 'pretty')
    problems.push(`LOG_FORMAT must be json or pretty (got "${env.LOG_FORMAT}")`);
  // main.ts defaults LOG_FORMAT to pretty when stdout is a terminal.
  const logFormat: 'json' | 'pretty' = logFormatRaw === 'pretty' ? 'pretty' : 'json';
  const corsOrigins = parseCorsOrigins(env.CORS_ORIGINS, problems);

  if (problems.length > 0) throw new ConfigError(problems);

  if (!jwtSecret || !encryptionKeyRaw) {
    const generated = loadOrCreateDevSecrets(dataDir);
    jwtSecret ??= generated.jwtSecret;
    if (!encryptionKeyRaw) {
      encryptionKeyRaw = generated.encryptionKey;
      encryptionKey = Buffer.from(encryptionKeyRaw, 'base64');
    }
  }

  return {
    env: nodeEnv,
    port,
    role,
    workerNice,
    pipelineYield,
    dataDir,
    publicBaseUrl,
    logLevel: env.LOG_LEVEL || (nodeEnv === 'test' ? 'silent' : 'info'),
    db: { url: databaseUrl, migrationsRun, poolSize, ackPoolSize },
    redis: { url: redisUrl, prefix: env.QUEUE_PREFIX || 'sis' },
    auth: {
      jwtSecret,
      jwtExpiresInSeconds,
      signupEnabled,
      loginRateLimit,
      signupRateLimit,
      loginIpRateLimit,
      passwordHashCost: nodeEnv === 'test' ? 1024 : 32768,
    },
    http,
    ticks,
    encryptionKey,
    bootstrap: {
      adminEmail: (env.BOOTSTRAP_ADMIN_EMAIL || 'admin@example.com').toLowerCase(),
      adminPassword: env.BOOTSTRAP_ADMIN_PASSWORD || null,
      workspaceName: env.BOOTSTRAP_WORKSPACE || 'Default',
      plan,
    },
    outbound,
    platforms,
    llm,
    logFormat,
    corsOrigins,
    metricsToken: env.METRICS_TOKEN || null,
  };
}

/** `CORS_ORIGINS`: unset/empty = off, `*` = any origin, else a comma-separated list of origins. */
function parseCorsOrigins(raw: string | undefined, problems: string[]): '*' | string[] | null {
  const value = raw?.trim();
  if (!value) return null;
  if (value === '*') return '*';
  const origins = value
    .split(',')
    .map((part) => part.trim().replace(/\/+$/, ''))
    .filter(Boolean);
  for (const origin of origins) {
    try {
      const parsed = new URL(origin);
      if (parsed.origin !== origin) throw new Error('not an origin');
    } catch {
      problems.push(`CORS_ORIGINS must be * or comma-separated origins like https://app.example.com (got "${origin}")`);
    }
  }
  return origins;
}

/**
 * `TRUST_PROXY` → Express's `trust proxy`: unset = `loopback` (a proxy on this machine), `false` =
 * the socket's address, `true` = the left-most X-Forwarded-For entry, a number = that many hops, or
 * a comma-separated list of proxy addresses/subnets.
 */
function trustProxyOf(raw: string | undefined): boolean | number | string {
  const value = raw?.trim();
  if (!value) return 'loopback';
  if (/^(false|0|no)$/i.test(value)) return false;
  if (/^(true|yes)$/i.test(value)) return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

interface DevSecrets {
  jwtSecret: string;
  encryptionKey: string;
}

/** Development only: secrets are generated once into DATA_DIR and reused, never printed. */
function loadOrCreateDevSecrets(dataDir: string): DevSecrets {
  const file = join(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DevSecrets;
  mkdirSync(dataDir, { recursive: true });
  const secrets: DevSecrets = {
    jwtSecret: randomBytes(32).toString('base64url'),
    encryptionKey: randomBytes(32).toString('base64'),
  };
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
}
