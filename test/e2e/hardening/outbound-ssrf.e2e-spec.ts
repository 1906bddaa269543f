import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { blockedReason, OutboundHttp } from 'src/core/http/outbound-http';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, setPlan, signupWorkspace } from '../../utils/sessions';
import { syncNow } from '../catalogue/sync-helpers';

/**
 * Issue 9 item 2 end to end with OUTBOUND_ALLOW_PRIVATE_NETWORKS=false: a website whose (public)
 * address redirects to localhost, to 127.0.0.1 or to an IPv4-embedding IPv6 form is refused at the
 * redirect; the internal server is never asked and nothing reaches the catalogue. Only the stand-in
 * for a public DNS name (`*.public.test`, resolved to this machine) is declared public; every other
 * check is the service's own.
 */
describe('Outbound SSRF (issue 9): redirects into private networks are refused', () => {
  let t: TestApp;
  let admin: Session;
  let server: Server;
  let port = 0;
  const requests: { path: string; headers: Record<string, unknown> }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push({ path: url.pathname, headers: req.headers });
      if (url.pathname === '/redirect') return void res.writeHead(302, { location: url.searchParams.get('to')! }).end();
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify([{ id: `p-${url.pathname}`, name: 'Internal secret product', price: 1 }]));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
    t = await createTestApp({ env: { OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'false' } });
    const http = t.app.get(OutboundHttp);
    http.resolver = (_host, _family, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]);
    http.blockedReasonFor = (host, address) => (host.endsWith('.public.test') ? null : blockedReason(address));
    admin = await signupWorkspace(t, 'Ssrf');
    await setPlan(t, admin.workspaceId, 'ENTERPRISE');
  });
  afterAll(async () => {
    await t.close();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('refuses private URLs when they are saved (IPv4-embedding IPv6 forms included)', async () => {
    for (const url of [
      `http://127.0.0.1:${port}/p`,
      `http://localhost:${port}/p`,
      'http://[::127.0.0.1]/p',
      'http://[64:ff9b::a9fe:a9fe]/p',
      'http://[2002:7f00:1::]/p',
      'http://169.254.169.254/latest/meta-data',
    ]) {
      const res = await t.http
        .post('/catalog/websites')
        .set(admin.headers)
        .send({ name: 'W', url, intervalMinutes: 60 });
      expect({ url, status: res.status, code: res.body.code }).toEqual({ url, status: 400, code: 'validation_failed' });
    }
    const custom = await t.http
      .post('/channels/connect')
      .set(admin.headers)
      .send({
        type: 'CUSTOM',
        displayName: 'C',
        inboundSecret: 'in-secret-123456',
        outboundUrl: 'http://[::ffff:10.0.0.1]/x',
      });
    expect(custom.status).toBe(400);
  });

  it('a sync whose public site redirects to localhost fails; the internal server is never asked', async () => {
    for (const target of [
      `http://localhost:${port}/internal`,
      `http://127.0.0.1:${port}/internal`,
      `http://[::ffff:127.0.0.1]:${port}/internal`,
    ]) {
      const created = await t.http
        .post('/catalog/websites')
        .set(admin.headers)
        .send({
          name: 'Public shop',
          url: `http://shop.public.test:${port}/redirect?to=${encodeURIComponent(target)}`,
          keyHeaderName: 'X-Shop-Key',
          keyHeaderValue: 'shop-key-value',
          intervalMinutes: 60,
        })
        .expect(201);
      requests.length = 0;
      const run = await syncNow(t, admin.headers, created.body.id);
      expect(run.status).toBe('FAILED');
      expect(run.message).toMatch(/refused/);
      expect(requests.map((r) => r.path)).toEqual(['/redirect']);
    }
    const catalog = await t.http.get('/catalog').set(admin.headers).expect(200);
    expect(catalog.body.data).toEqual([]);
  });

  it('a redirect to another public origin is followed without the key header', async () => {
    const created = await t.http
      .post('/catalog/websites')
      .set(admin.headers)
      .send({
        name: 'Moved shop',
        url: `http://shop.public.test:${port}/redirect?to=${encodeURIComponent(`http://cdn.public.test:${port}/products`)}`,
        keyHeaderName: 'X-Shop-Key',
        keyHeaderValue: 'shop-key-value',
        intervalMinutes: 60,
      })
      .expect(201);
    requests.length = 0;
    const run = await syncNow(t, admin.headers, created.body.id);
    expect(run.status).toBe('SUCCESS');
    expect(requests.map((r) => r.path)).toEqual(['/redirect', '/products']);
    expect(requests[0]!.headers['x-shop-key']).toBe('shop-key-value');
    expect(requests[1]!.headers['x-shop-key']).toBeUndefined();
  });
});
