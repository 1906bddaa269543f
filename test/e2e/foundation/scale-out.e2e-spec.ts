import { afterAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { type TestApp, createTestApp, eventually } from '../../utils/test-app';
import { apiToken, signupWorkspace } from '../../utils/sessions';

// An api process and a worker process sharing one PostgreSQL and one Redis (needs both: CI's second pass).
const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);

(shared ? describe : describe.skip)('api and worker roles', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const t of apps.reverse()) await t.close();
  });

  it('the api process enqueues, only the worker process runs the job', async () => {
    const api = await createTestApp({ env: { APP_ROLE: 'api' } });
    apps.push(api);
    const admin = await signupWorkspace(api);
    const { headers } = await apiToken(api, admin);
    await api.http.get('/workspace').set(headers).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const pending: { last_used_at: Date | null }[] = await api.app
      .get(DataSource)
      .query('SELECT last_used_at FROM api_tokens WHERE workspace_id = $1', [admin.workspaceId]);
    expect(pending[0]!.last_used_at).toBeNull();

    const worker = await createTestApp({
      env: { APP_ROLE: 'worker', QUEUE_PREFIX: api.config.redis.prefix },
      reuse: { dataDir: api.dataDir, databaseUrl: api.config.db.url! },
    });
    apps.push(worker);
    await eventually(async () => {
      const rows: { last_used_at: Date | null }[] = await api.app
        .get(DataSource)
        .query('SELECT last_used_at FROM api_tokens WHERE workspace_id = $1', [admin.workspaceId]);
      expect(rows[0]!.last_used_at).not.toBeNull();
    }, 15_000);
  });
});
