import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from './app-config';

const dir = () => mkdtempSync(join(tmpdir(), 'sis-config-'));

describe('loadConfig', () => {
  it('runs with no environment at all: embedded database, inline jobs, generated secrets', () => {
    const dataDir = dir();
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config).toMatchObject({
      port: 4000,
      role: 'all',
      env: 'development',
      db: { url: null, migrationsRun: true },
      redis: { url: null },
    });
    expect(config.publicBaseUrl).toBe('http://localhost:4000');
    expect(config.encryptionKey).toHaveLength(32);
    expect(config.bootstrap).toEqual({
      adminEmail: 'admin@example.com',
      adminPassword: null,
      workspaceName: 'Default',
      plan: 'ENTERPRISE',
    });
    expect(statSync(join(dataDir, 'secrets.json')).mode & 0o777).toBe(0o600);
    const again = loadConfig({ DATA_DIR: dataDir });
    expect(again.auth.jwtSecret).toBe(config.auth.jwtSecret);
    expect(again.encryptionKey.equals(config.encryptionKey)).toBe(true);
    expect(readFileSync(join(dataDir, 'secrets.json'), 'utf8')).toContain(config.auth.jwtSecret);
  });

  it('refuses to start in production without secrets, listing each', () => {
    try {
      loadConfig({ NODE_ENV: 'production', DATA_DIR: dir() });
      throw new Error('should have thrown');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems).toEqual([
        'JWT_SECRET is required when NODE_ENV=production',
        'ENCRYPTION_KEY is required when NODE_ENV=production',
      ]);
    }
  });

  it('reports every bad value at once', () => {
    expect(() =>
      loadConfig({
        DATA_DIR: dir(),
        PORT: 'eighty',
        APP_ROLE: 'boss',
        REDIS_URL: 'nope',
        ENCRYPTION_KEY: 'c2hvcnQ=',
        MIGRATIONS_RUN: 'maybe',
      }),
    ).toThrow(
      /PORT must be an integer[\s\S]*APP_ROLE must be one of[\s\S]*REDIS_URL must be a URL[\s\S]*ENCRYPTION_KEY must be 32 bytes[\s\S]*MIGRATIONS_RUN must be true or false/,
    );
  });

  it('hashes passwords with scrypt N=32768, lowered to 1024 under NODE_ENV=test only', () => {
    expect(loadConfig({ DATA_DIR: dir() }).auth.passwordHashCost).toBe(32768);
    expect(loadConfig({ DATA_DIR: dir(), NODE_ENV: 'development' }).auth.passwordHashCost).toBe(32768);
    expect(loadConfig({ DATA_DIR: dir(), NODE_ENV: 'test' }).auth.passwordHashCost).toBe(1024);
  });

  it('reads WORKER_NICE and ACK_POOL_SIZE (issue 16), refusing values out of range', () => {
    const base = { DATA_DIR: dir() };
    const defaults = loadConfig(base);
    expect(defaults.workerNice).toBe(10);
    expect(defaults.db.ackPoolSize).toBe(2);
    const set = loadConfig({ ...base, WORKER_NICE: '0', ACK_POOL_SIZE: '0' });
    expect(set.workerNice).toBe(0);
    expect(set.db.ackPoolSize).toBe(0);
    expect(() => loadConfig({ ...base, WORKER_NICE: '20', ACK_POOL_SIZE: '-1' })).toThrow(
      /WORKER_NICE must be an integer between 0 and 19[\s\S]*ACK_POOL_SIZE must be an integer between 0 and 20/,
    );
  });

  it('reads the pipeline yield settings (issue 16): on by default, 0 turns it off, out of range refused', () => {
    const base = { DATA_DIR: dir() };
    expect(loadConfig(base).pipelineYield).toEqual({ ackRate: 600, concurrency: 0, maxMs: 15_000 });
    const set = loadConfig({
      ...base,
      PIPELINE_YIELD_ACK_RATE: '0',
      PIPELINE_YIELD_CONCURRENCY: '3',
      PIPELINE_YIELD_MAX_MS: '2000',
    });
    expect(set.pipelineYield).toEqual({ ackRate: 0, concurrency: 3, maxMs: 2_000 });
    expect(() => loadConfig({ ...base, PIPELINE_YIELD_CONCURRENCY: '-1', PIPELINE_YIELD_MAX_MS: '10' })).toThrow(
      /PIPELINE_YIELD_CONCURRENCY must be an integer between 0[\s\S]*PIPELINE_YIELD_MAX_MS must be an integer between 1000/,
    );
  });

  it('reads retry schedules and private-network defaults', () => {
    const config = loadConfig({
      DATA_DIR: dir(),
      OUTBOUND_RETRY_DELAYS: '1, 2,3',
      NODE_ENV: 'production',
      JWT_SECRET: 'x'.repeat(32),
      ENCRYPTION_KEY: Buffer.alloc(32).toString('base64'),
    });
    expect(config.outbound.retryDelaysSeconds).toEqual([1, 2, 3]);
    expect(config.outbound.webhookRetryDelaysSeconds).toEqual([10, 60, 600, 3600, 21600, 86400]);
    expect(config.outbound.allowPrivateNetworks).toBe(false);
    expect(loadConfig({ DATA_DIR: dir() }).outbound.allowPrivateNetworks).toBe(true);
  });

  it('reads TRUST_PROXY and DOCS_ENABLED (issue 9)', () => {
    const base = { DATA_DIR: dir() };
    expect(loadConfig(base).http).toEqual({ trustProxy: 'loopback', docsEnabled: true });
    expect(loadConfig({ ...base, TRUST_PROXY: 'false' }).http.trustProxy).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: 'true' }).http.trustProxy).toBe(true);
    expect(loadConfig({ ...base, TRUST_PROXY: '2' }).http.trustProxy).toBe(2);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8, 192.168.0.1' }).http.trustProxy).toBe(
      '10.0.0.0/8, 192.168.0.1',
    );
    const prod = {
      ...base,
      NODE_ENV: 'production',
      JWT_SECRET: 'x'.repeat(32),
      ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
    };
    expect(loadConfig(prod).http.docsEnabled).toBe(false);
    expect(loadConfig({ ...prod, DOCS_ENABLED: 'true' }).http.docsEnabled).toBe(true);
  });
});
