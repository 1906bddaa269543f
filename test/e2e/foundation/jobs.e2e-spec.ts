import { afterAll, describe, expect, it } from '@jest/globals';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { redisAnswers } from 'src/core/queue/bullmq.driver';
import { JobQueueService } from 'src/core/queue/job-queue.service';
import { type TestApp, createTestApp, eventually, usingRedis } from '../../utils/test-app';
import { apiToken, signupWorkspace } from '../../utils/sessions';

function redisServerBinary(): string | null {
  try {
    return execFileSync('which', ['redis-server']).toString().trim() || null;
  } catch {
    return null;
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Whether @nestjs/bullmq registered the `inbound` queue in this app (it must not be loaded without Redis). */
function bullQueue(t: TestApp): Queue | null {
  try {
    return t.app.get<Queue>(getQueueToken('inbound'), { strict: false });
  } catch {
    return null;
  }
}

/** Proves a job ran: using an API token records its lastUsedAt through the ApiTokenTouch job. */
async function expectTokenTouched(t: TestApp): Promise<void> {
  const admin = await signupWorkspace(t);
  const { headers } = await apiToken(t, admin);
  await t.http.get('/workspace').set(headers).expect(200);
  await t.drain();
  await eventually(async () => {
    const list = await t.http.get('/developer/tokens').set(admin.headers).expect(200);
    expect(list.body.data[0].lastUsedAt).not.toBeNull();
  }, 15_000);
}

describe('job backends', () => {
  const apps: TestApp[] = [];
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    for (const t of apps) await t.close();
  });

  it('runs jobs in-process without Redis', async () => {
    const t = await createTestApp({ env: { REDIS_URL: '' } });
    apps.push(t);
    const health = await t.http.get('/health').expect(200);
    expect(health.body.info.queue).toEqual({ status: 'up', backend: 'inline' });
    expect(bullQueue(t)).toBeNull();
    await expectTokenTouched(t);
  });

  it('falls back in-process when REDIS_URL does not answer at boot', async () => {
    const t = await createTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
    apps.push(t);
    const health = await t.http.get('/health').expect(200);
    expect(health.body.status).toBe('degraded');
    expect(health.body.info.queue).toEqual({ status: 'degraded', backend: 'inline' });
    expect(bullQueue(t)).toBeNull();
    await expectTokenTouched(t);
  });

  (usingRedis() ? it : it.skip)('runs jobs on BullMQ workers with Redis', async () => {
    const t = await createTestApp();
    apps.push(t);
    const health = await t.http.get('/health').expect(200);
    expect(health.body.info.queue).toEqual({ status: 'up', backend: 'redis' });
    // Queues come from BullModule.registerQueue, under this app's QUEUE_PREFIX.
    expect(bullQueue(t)?.opts.prefix).toBe(t.config.redis.prefix);
    await expectTokenTouched(t);
    expect(t.app.get(JobQueueService).fallbacks).toBe(0);
  });

  const binary = redisServerBinary();
  (binary && usingRedis() ? it : it.skip)(
    'keeps working when Redis stops at run time: enqueue fails fast and runs in-process',
    async () => {
      const port = await freePort();
      const child = spawn(
        binary!,
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      children.push(child);
      await eventually(async () => {
        expect(await redisAnswers(`redis://127.0.0.1:${port}`)).toBe(true);
      }, 5_000);
      const t = await createTestApp({ env: { REDIS_URL: `redis://127.0.0.1:${port}` } });
      apps.push(t);
      expect((await t.http.get('/health').expect(200)).body.info.queue.backend).toBe('redis');
      child.kill('SIGKILL');
      await eventually(async () => {
        expect((await t.http.get('/health').expect(200)).body.info.queue.backend).toBe('inline');
      }, 5_000);
      const started = Date.now();
      await expectTokenTouched(t);
      expect(t.app.get(JobQueueService).fallbacks).toBeGreaterThan(0);
      expect(Date.now() - started).toBeLessThan(10_000);
    },
  );
});
