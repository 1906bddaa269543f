import { describe, expect, it } from '@jest/globals';
import { preparedStatements } from 'src/core/database/prepared-statements';
import { findTenantContext } from 'src/core/tenancy/tenant-context';
import { InlineDriver } from './inline.driver';
import { JobName, QueueName } from './job-names';
import { JobRegistry, JobRegistryError, type JobFn } from './job-registry';
import type { JobPayload } from './job-queue.port';

function registryWith(run: JobFn): JobRegistry {
  const registry = new JobRegistry(null as never, null as never, null as never);
  registry.register(
    [{ options: { name: JobName.ApiTokenTouch, queue: QueueName.Maintenance }, run }],
    [JobName.ApiTokenTouch],
  );
  return registry;
}

const WS = '00000000-0000-4000-8000-000000000001';

describe('JobRegistry', () => {
  it('refuses to start when a declared job has no handler', () => {
    const registry = new JobRegistry(null as never, null as never, null as never);
    expect(() => registry.register([], [JobName.ApiTokenTouch])).toThrow(JobRegistryError);
    expect(() => registry.register([], [JobName.ApiTokenTouch])).toThrow('job "api-token.touch" has no handler');
  });

  it('refuses two handlers for one job', () => {
    const registry = new JobRegistry(null as never, null as never, null as never);
    const handler = {
      options: { name: JobName.ApiTokenTouch, queue: QueueName.Maintenance },
      run: async () => undefined,
    };
    expect(() => registry.register([handler, handler], [JobName.ApiTokenTouch])).toThrow('more than one handler');
  });

  it('runs a `prepared` handler with its statements named, and only that one', async () => {
    const registry = new JobRegistry(null as never, null as never, null as never);
    const seen: Record<string, boolean> = {};
    registry.register(
      [
        {
          options: { name: JobName.ApiTokenTouch, queue: QueueName.Maintenance, prepared: true },
          run: async () => (seen.prepared = preparedStatements.active),
        },
        {
          options: { name: JobName.CatalogWebsiteSync, queue: QueueName.Catalog },
          run: async () => (seen.plain = preparedStatements.active),
        },
      ],
      [JobName.ApiTokenTouch, JobName.CatalogWebsiteSync],
    );
    await registry.execute(JobName.ApiTokenTouch, { workspaceId: WS });
    await registry.execute(JobName.CatalogWebsiteSync, { workspaceId: WS });
    expect(seen).toEqual({ prepared: true, plain: false });
    expect(preparedStatements.active).toBe(false);
  });
});

describe('InlineDriver', () => {
  it('runs the handler after the current tick inside the payload’s workspace', async () => {
    const seen: (string | null)[] = [];
    const driver = new InlineDriver(registryWith(async () => seen.push(findTenantContext()?.workspaceId ?? null)));
    driver.enqueue(JobName.ApiTokenTouch, { workspaceId: WS });
    expect(seen).toEqual([]);
    await driver.drain();
    expect(seen).toEqual([WS]);
  });

  it('tells which job ids are still pending: delayed or running, not finished ones', async () => {
    let finish: () => void = () => undefined;
    const driver = new InlineDriver(registryWith(() => new Promise<void>((resolve) => (finish = resolve))));
    driver.enqueue(JobName.ApiTokenTouch, { workspaceId: WS }, { jobId: 'running' });
    driver.enqueue(JobName.ApiTokenTouch, { workspaceId: WS }, { jobId: 'later', delayMs: 60_000 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(driver.isPending(JobName.ApiTokenTouch, 'running')).toBe(true);
    expect(driver.isPending(JobName.ApiTokenTouch, 'later')).toBe(true);
    expect(driver.isPending(JobName.ApiTokenTouch, 'never-queued')).toBe(false);
    finish();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(driver.isPending(JobName.ApiTokenTouch, 'running')).toBe(false);
    driver.close();
  });

  it('retries with backoff and stops after the last attempt', async () => {
    const attempts: number[] = [];
    const driver = new InlineDriver(
      registryWith(async () => {
        attempts.push(Date.now());
        throw new Error('flaky');
      }),
    );
    driver.enqueue(JobName.ApiTokenTouch, { workspaceId: WS }, { attempts: 3, backoffMs: [30, 60] });
    await driver.drain();
    expect(attempts).toHaveLength(3);
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(25);
    expect(attempts[2]! - attempts[1]!).toBeGreaterThanOrEqual(55);
  });

  it('succeeds on a later attempt', async () => {
    let calls = 0;
    const driver = new InlineDriver(
      registryWith(async () => {
        calls++;
        if (calls < 2) throw new Error('once');
      }),
    );
    driver.enqueue(JobName.ApiTokenTouch, { workspaceId: WS }, { attempts: 5, backoffMs: [1] });
    await driver.drain();
    expect(calls).toBe(2);
  });

  it('deduplicates pending jobs with the same jobId', async () => {
    const payloads: JobPayload[] = [];
    const driver = new InlineDriver(registryWith(async (data) => void payloads.push(data)));
    driver.enqueue(JobName.ApiTokenTouch, { workspaceId: WS }, { jobId: 'same' });
    driver.enqueue(JobName.ApiTokenTouch, { workspaceId: WS }, { jobId: 'same' });
    driver.enqueue(JobName.ApiTokenTouch, { workspaceId: WS }, { jobId: 'other' });
    await driver.drain();
    expect(payloads).toHaveLength(2);
    driver.enqueue(JobName.ApiTokenTouch, { workspaceId: WS }, { jobId: 'same' });
    await driver.drain();
    expect(payloads).toHaveLength(3);
  });

  it('honours a delay', async () => {
    const started = Date.now();
    let ranAt = 0;
    const driver = new InlineDriver(registryWith(async () => void (ranAt = Date.now())));
    driver.enqueue(JobName.ApiTokenTouch, { workspaceId: WS }, { delayMs: 50 });
    await driver.drain();
    expect(ranAt - started).toBeGreaterThanOrEqual(45);
  });
});
