import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundHttp, OutboundHttpError, blockedReason, ipv6Bytes } from './outbound-http';

describe('address classifier', () => {
  it('blocks every private, loopback, link-local, CGNAT, multicast, reserved and metadata IPv4 address', () => {
    for (const ip of [
      '0.0.0.0',
      '10.1.2.3',
      '100.64.0.1',
      '100.100.100.200',
      '127.0.0.1',
      '127.255.255.254',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.255',
      '192.0.0.170',
      '192.168.1.1',
      '198.18.0.1',
      '224.0.0.1',
      '239.255.255.250',
      '255.255.255.255',
    ]) {
      expect({ ip, blocked: blockedReason(ip) !== null }).toEqual({ ip, blocked: true });
    }
  });

  it('blocks IPv6 loopback, ULA (incl. fd00:ec2::254), link-local, multicast and every IPv4-embedding form', () => {
    for (const ip of [
      '::',
      '::1',
      'fd00::1',
      'fd00:ec2::254',
      'fe80::1',
      'fe80::1%eth0',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::127.0.0.1',
      '::a9fe:a9fe',
      '[::10.0.0.1]',
      '64:ff9b::a9fe:a9fe',
      '64:ff9b::127.0.0.1',
      '64:ff9b:1::1',
      '2002:7f00:1::',
      '2002:a9fe:a9fe::1',
      '2002:c0a8:0101::',
      '2001:0:4136:e378::1',
      '::ffff:0:127.0.0.1',
    ]) {
      expect({ ip, blocked: blockedReason(ip) !== null }).toEqual({ ip, blocked: true });
    }
  });

  it('lets public addresses through, including public IPv4 embedded in IPv6', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4001:80b::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      expect({ ip, reason: blockedReason(ip) }).toEqual({ ip, reason: null });
    }
  });

  it('parses IPv6 with :: and a dotted quad', () => {
    expect(ipv6Bytes('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4]);
    expect(ipv6Bytes('2002:7f00:1::')!.slice(0, 6)).toEqual([0x20, 0x02, 0x7f, 0x00, 0x00, 0x01]);
    expect(ipv6Bytes('not-an-ip')).toBeNull();
  });
});

describe('OutboundHttp', () => {
  let server: Server;
  let base = '';
  const seen: IncomingMessage[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req);
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/redirect') {
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/' }).end();
      } else if (url.pathname === '/loop') {
        res.writeHead(302, { location: '/loop' }).end();
      } else if (url.pathname === '/big') {
        res.writeHead(200).end('x'.repeat(5000));
      } else if (url.pathname === '/slow') {
        setTimeout(() => res.writeHead(200).end('late'), 1000);
      } else {
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ path: url.pathname, headers: req.headers }));
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const client = (allowPrivateNetworks: boolean) => new OutboundHttp({ outbound: { allowPrivateNetworks } } as never);

  it('refuses non-http schemes and private literals; connects when private networks are allowed', async () => {
    await expect(client(false).request({ url: 'ftp://example.com/' })).rejects.toMatchObject({ kind: 'bad_url' });
    await expect(client(false).request({ url: 'file:///etc/passwd' })).rejects.toMatchObject({ kind: 'bad_url' });
    await expect(client(false).request({ url: `${base}/ok` })).rejects.toMatchObject({ kind: 'refused' });
    await expect(client(false).request({ url: 'http://[::ffff:127.0.0.1]:9/' })).rejects.toMatchObject({
      kind: 'refused',
    });
    await expect(client(false).request({ url: 'http://localhost:9/' })).rejects.toMatchObject({ kind: 'refused' });
    const ok = await client(true).request({ url: `${base}/ok` });
    expect(ok.status).toBe(200);
  });

  it('checks the address it connects to, through the lookup hook (no second resolution)', async () => {
    const http = client(false);
    const asked: string[] = [];
    http.resolver = (host, _family, cb) => {
      asked.push(host);
      cb(null, [{ address: '127.0.0.1', family: 4 }]);
    };
    // Even a public-looking name is refused when what it resolves to (at connect time) is private.
    await expect(http.request({ url: `http://public.example.test:${new URL(base).port}/ok` })).rejects.toMatchObject({
      kind: 'refused',
    });
    expect(asked).toEqual(['public.example.test']);
  });

  it('follows redirects by hand, checks each hop, and drops key headers when the origin changes', async () => {
    const http = client(false);
    const port = new URL(base).port;
    http.resolver = (_host, _family, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]);
    // Stand-in for public DNS names: only *.public.test counts as public.
    http.blockedReasonFor = (host, address) => (host.endsWith('.public.test') ? null : blockedReason(address));
    seen.length = 0;
    await expect(
      http.request({ url: `http://shop.public.test:${port}/redirect?to=http://localhost:${port}/secret` }),
    ).rejects.toMatchObject({ kind: 'refused' });
    await expect(
      http.request({ url: `http://shop.public.test:${port}/redirect?to=http://127.0.0.1:${port}/secret` }),
    ).rejects.toMatchObject({ kind: 'refused' });
    expect(seen.map((r) => r.url)).not.toContain('/secret');

    const moved = await http.request({
      url: `http://shop.public.test:${port}/redirect?to=http://other.public.test:${port}/landing`,
      headers: { 'x-shop-key': 'k1', authorization: 'Bearer t', accept: 'application/json' },
    });
    const echoed = JSON.parse(moved.text()) as { path: string; headers: Record<string, string> };
    expect(echoed.path).toBe('/landing');
    expect(echoed.headers['x-shop-key']).toBeUndefined();
    expect(echoed.headers.authorization).toBeUndefined();
    expect(echoed.headers.accept).toBe('application/json');

    const same = await http.request({
      url: `http://shop.public.test:${port}/redirect?to=/landing`,
      headers: { 'x-shop-key': 'k1' },
    });
    expect((JSON.parse(same.text()) as { headers: Record<string, string> }).headers['x-shop-key']).toBe('k1');

    await expect(http.request({ url: `http://shop.public.test:${port}/loop` })).rejects.toMatchObject({
      kind: 'redirects',
    });
  });

  it('limits size and time', async () => {
    await expect(client(true).request({ url: `${base}/big`, maxBytes: 1000 })).rejects.toMatchObject({
      kind: 'too_large',
    });
    await expect(client(true).request({ url: `${base}/slow`, timeoutMs: 200 })).rejects.toBeInstanceOf(
      OutboundHttpError,
    );
  });

  it('keeps a connection open for the next request to the same host; only a new connection is looked up and checked', async () => {
    const http = client(false);
    const port = new URL(base).port;
    const asked: string[] = [];
    http.resolver = (host, _family, cb) => {
      asked.push(host);
      cb(null, [{ address: '127.0.0.1', family: 4 }]);
    };
    http.blockedReasonFor = (host, address) => (host.endsWith('.public.test') ? null : blockedReason(address));
    const connections: number[] = [];
    const count = (): void => void connections.push(1);
    server.on('connection', count);
    try {
      for (let i = 0; i < 3; i++)
        expect((await http.request({ url: `http://shop.public.test:${port}/ok` })).status).toBe(200);
      expect(connections).toHaveLength(1);
      expect(asked).toEqual(['shop.public.test']);
      // Another host is another connection, looked up and checked on its own: refused here.
      await expect(http.request({ url: `http://localhost:${port}/ok` })).rejects.toMatchObject({ kind: 'refused' });
      expect(asked).toEqual(['shop.public.test', 'localhost']);
      // A request that timed out does not give its connection back.
      await expect(http.request({ url: `http://shop.public.test:${port}/slow`, timeoutMs: 100 })).rejects.toMatchObject(
        {
          kind: 'timeout',
        },
      );
      expect((await http.request({ url: `http://shop.public.test:${port}/ok` })).status).toBe(200);
      expect(connections).toHaveLength(2);
    } finally {
      server.off('connection', count);
      http.onModuleDestroy();
    }
  });
});
