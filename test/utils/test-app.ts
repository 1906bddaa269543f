import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject } from '@nestjs/swagger';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { type AppConfig, loadConfig } from 'src/core/config/app-config';
import { CacheInvalidation, type CacheTopic } from 'src/core/events/cache-invalidation';
import { JobQueueService } from 'src/core/queue/job-queue.service';
import { buildOpenApiDocument, openApiDocumentOf } from 'src/core/http/openapi';
import { createApp } from 'src/create-app';
import { OpenApiResponseChecker } from './openapi-responses';
import { copyEmbeddedTemplate, createDatabaseFromTemplate, embeddedTemplateDir } from './template-db';
import { treeHash } from './tree-hash';

export const TEST_ADMIN_EMAIL = 'admin@example.com';
export const TEST_ADMIN_PASSWORD = 'admin-password-1';

export interface TestApp {
  readonly app: NestExpressApplication;
  readonly config: AppConfig;
  readonly http: TestAgent;
  readonly dataDir: string;
  /** Waits until every in-process job has run (inline driver). */
  drain(): Promise<void>;
  /** The responses so far that did not match the OpenAPI document (null when all did). */
  openApiMismatches(): string | null;
  /** Stops the app (then fails if a response did not match the OpenAPI document); keeps the data directory and database when `keepData` (restart tests). */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export interface TestAppOptions {
  /** Extra environment, e.g. `{ REDIS_URL: '' }` to force the inline driver. */
  readonly env?: Record<string, string>;
  /** Reuse a data directory / database from a previous TestApp (restart tests). */
  readonly reuse?: { dataDir: string; databaseUrl?: string };
  /** Listen on a real port (for load tools and platform callbacks). */
  readonly listen?: boolean;
  /** Where the service's logs go (default stdout; the log-secrets test captures them). */
  readonly logStream?: { write(line: string): void };
}

/**
 * The full service for one test file: its own database (a copy of the migrated template on the
 * embedded engine, or a new database on the real PostgreSQL of DATABASE_URL), BullMQ on REDIS_URL
 * when set (with a private queue prefix), the inline driver otherwise.
 */
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = options.reuse?.dataDir ?? mkdtempSync(join(tmpdir(), 'sis-test-'));
  const outer = process.env;
  let databaseUrl = options.reuse?.databaseUrl;
  let drop: (() => Promise<void>) | null = null;
  if (!options.reuse) {
    if (outer.DATABASE_URL) {
      const db = await createDatabaseFromTemplate(outer.DATABASE_URL);
      databaseUrl = db.url;
      drop = db.drop;
    } else {
      copyEmbeddedTemplate(await embeddedTemplateDir(), dataDir);
    }
  }
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    PORT: '0',
    DATA_DIR: dataDir,
    JWT_SECRET: 'test-jwt-secret-0123456789',
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    BOOTSTRAP_ADMIN_EMAIL: TEST_ADMIN_EMAIL,
    BOOTSTRAP_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    LOG_LEVEL: outer.TEST_LOG_LEVEL ?? 'silent',
    QUEUE_PREFIX: `sis-test-${randomBytes(4).toString('hex')}`,
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    // Tests sign up a fresh workspace per case from one IP.
    SIGNUP_RATE_LIMIT: '100000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(outer.REDIS_URL ? { REDIS_URL: outer.REDIS_URL } : {}),
    ...options.env,
  };
  const config = loadConfig(env);
  const app = await createApp(config, { logStream: options.logStream });
  // Every JSON response of every e2e file is checked against the OpenAPI document (see close()).
  const checker =
    outer.OPENAPI_RESPONSE_CHECK === 'off'
      ? null
      : new OpenApiResponseChecker(openApiDocumentOf(app) ?? cachedOpenApiDocument(app, config));
  checker?.install(app);
  if (options.listen) await app.listen(0, '127.0.0.1');
  else await app.init();
  const jobs = app.get(JobQueueService);
  return {
    app,
    config,
    dataDir,
    http: request(app.getHttpServer()),
    drain: () => jobs.inline.drain(),
    openApiMismatches: () => checker?.report() ?? null,
    close: async ({ keepData = false } = {}) => {
      await app.close();
      if (!keepData) {
        await drop?.();
        // Not awaited: deleting an embedded data directory (~2,500 files) would hold the worker's next file.
        void rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
      }
      const report = checker?.report();
      if (report) throw new Error(report);
    },
  };
}

/**
 * The app's OpenAPI document, built once per source tree and shared by the test files through a file
 * (building it costs every e2e file ~0.7 s of CPU; the document depends only on the code and the
 * public base URL). Keyed by a hash of src/, so any change to the code builds it again.
 */
function cachedOpenApiDocument(app: NestExpressApplication, config: AppConfig): OpenAPIObject {
  const dir = join(tmpdir(), 'sis-test-openapi');
  const file = join(dir, `${treeHash(['src'], config.publicBaseUrl)}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as OpenAPIObject;
  const document = buildOpenApiDocument(app, config);
  mkdirSync(dir, { recursive: true });
  // Written under a private name, then renamed: a concurrent reader sees the whole file or none.
  const partial = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;
  writeFileSync(partial, JSON.stringify(document));
  renameSync(partial, file);
  return document;
}

/**
 * A second `api` process on the same PostgreSQL database as `first` (same encryption key and queue
 * prefix): what one process changes, the other must see (cross-process cache invalidation tests).
 */
export function createSecondApiProcess(first: TestApp): Promise<TestApp> {
  return createTestApp({
    env: {
      APP_ROLE: 'api',
      ENCRYPTION_KEY: first.config.encryptionKey.toString('base64'),
      ...(first.config.redis.prefix ? { QUEUE_PREFIX: first.config.redis.prefix } : {}),
    },
    reuse: { dataDir: first.dataDir, databaseUrl: first.config.db.url! },
  });
}

/**
 * Waits until `to` has heard every cache notification `from` committed so far. PostgreSQL delivers
 * notifications in commit order, so once a marker sent now has arrived, so has each earlier one.
 * Without it a late notification (a slow machine) drops what `to` has just cached, and a "served
 * from memory" check reads the database instead. `marker` must be a topic the check does not read.
 */
export async function heardEverything(from: TestApp, to: TestApp, marker: CacheTopic): Promise<void> {
  const before = to.app.get(CacheInvalidation).version(marker);
  await from.app.get(CacheInvalidation).changed(marker);
  await eventually(
    async () => {
      if (to.app.get(CacheInvalidation).version(marker) <= before) throw new Error(`marker ${marker} not heard yet`);
    },
    2_000,
    5,
  );
}

/** Whether this run uses BullMQ on a real Redis (jobs then complete asynchronously elsewhere). */
export function usingRedis(): boolean {
  return Boolean(process.env.REDIS_URL);
}

/** Polls until `check` stops throwing (for effects of jobs that run on BullMQ workers). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
