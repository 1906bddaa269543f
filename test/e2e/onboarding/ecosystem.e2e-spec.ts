import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startBanner } from 'src/core/logging/start-banner';
import { type TestApp, createTestApp } from '../../utils/test-app';

describe('ecosystem: CORS, /metrics, liveness/readiness, / → /docs, start banner', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: { CORS_ORIGINS: 'http://localhost:5173, https://app.example.com', METRICS_TOKEN: 'metrics-secret-1' },
    });
  }, 180_000);
  afterAll(() => t.close());

  it('answers a preflight from an allowed origin with the API headers allowed', async () => {
    const res = await t.http
      .options('/conversations')
      .set('Origin', 'http://localhost:5173')
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization,x-workspace-id');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(res.headers['access-control-allow-headers']).toContain('x-workspace-id');
    const get = await t.http.get('/health/live').set('Origin', 'https://app.example.com').expect(200);
    expect(get.headers['access-control-expose-headers']).toContain('x-request-id');
  });

  it('gives no CORS headers to another origin', async () => {
    const res = await t.http.get('/health/live').set('Origin', 'https://evil.example.com').expect(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('serves Prometheus metrics only with the METRICS_TOKEN', async () => {
    await t.http.get('/health/live').expect(200);
    await t.http.get('/no-such-route').expect(404);
    const refused = await t.http.get('/metrics').expect(401);
    expect(refused.body.code).toBe('unauthenticated');
    await t.http.get('/metrics').set('authorization', 'Bearer wrong').expect(401);
    const res = await t.http.get('/metrics').set('authorization', 'Bearer metrics-secret-1').expect(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toMatch(
      /sis_http_request_duration_seconds_bucket\{[^}]*method="GET"[^}]*route="\/health\/live"[^}]*status="200"/,
    );
    expect(res.text).toMatch(/route="unmatched"/);
    expect(res.text).toMatch(/sis_queue_jobs\{queue="inline",state="pending"\}/);
    expect(res.text).toContain('# TYPE sis_inbound_events gauge');
    expect(res.text).toContain('# TYPE sis_outbound_messages gauge');
    expect(res.text).toContain('# TYPE sis_job_duration_seconds histogram');
  });

  it('splits liveness from readiness', async () => {
    expect((await t.http.get('/health/live').expect(200)).body).toEqual({ status: 'ok' });
    const ready = await t.http.get('/health/ready').expect(200);
    expect(ready.body).toMatchObject({ status: 'ok', info: { database: { status: 'up' }, queue: { status: 'up' } } });
  });

  it('redirects / to the API documentation', async () => {
    const res = await t.http.get('/').expect(302);
    expect(res.headers.location).toBe('/docs');
  });

  it('prints one human block with the URL, /docs, the admin and where the password is', () => {
    const text = startBanner(t.config, 'embedded', 'inline', 4123);
    expect(text).toContain('http://localhost:4123');
    expect(text).toContain('http://localhost:4123/docs');
    expect(text).toContain(t.config.bootstrap.adminEmail);
    expect(text).toContain('BOOTSTRAP_ADMIN_PASSWORD');
    expect(text).toContain('Quick start');
  });
});
