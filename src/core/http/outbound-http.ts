import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { BlockList, isIP, isIPv4, type LookupFunction } from 'node:net';
import type { AppConfig } from 'src/core/config/app-config';
import { AppException } from 'src/core/errors/app.exception';
import { APP_CONFIG } from 'src/core/config/config.constants';

/*
 * The one outbound HTTP client for user-supplied URLs (issue 9): Custom Channel outbound, website
 * sync, shop APIs, developer webhooks. http(s) only; every address a host resolves to is checked
 * and the connection goes to an address that was checked (a `lookup` hook on the request, so DNS
 * cannot change between check and connect); redirects are followed by hand (≤ 5), each hop checked,
 * and every header but a few harmless ones is dropped when the origin changes; response size and
 * total time are limited. OUTBOUND_ALLOW_PRIVATE_NETWORKS is the only way around the address check.
 */

// ───────────────────────── address classifier ─────────────────────────

const V4 = new BlockList();
const V4_RANGES: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'this network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved / broadcast'],
];
for (const [net, prefix] of V4_RANGES) V4.addSubnet(net, prefix, 'ipv4');

const V6 = new BlockList();
const V6_RANGES: readonly [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard'],
  ['2001::', 32, 'Teredo'],
  ['2001:2::', 48, 'benchmarking'],
  ['2001:10::', 28, 'ORCHID'],
  ['2001:20::', 28, 'ORCHIDv2'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];
for (const [net, prefix] of V6_RANGES) V6.addSubnet(net, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address (with `::` and a trailing dotted quad), or null. */
export function ipv6Bytes(address: string): number[] | null {
  let text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(text) !== 6) return null;
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const p = quad[1]!.split('.').map(Number);
    text = `${text.slice(0, -quad[1]!.length)}${((p[0]! << 8) | p[1]!).toString(16)}:${((p[2]! << 8) | p[3]!).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const parts = (s: string | undefined) => (s ? s.split(':').filter((x) => x.length > 0) : []);
  const h = parts(head);
  const t = tail === null ? [] : parts(tail);
  const groups = tail === null ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  if (groups.length !== 8) return null;
  const bytes: number[] = [];
  for (const g of groups) {
    const n = parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  return bytes;
}

const v4Of = (b: number[], at: number): string => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
const zero = (b: number[], from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);

/**
 * Why an address must not be reached, or null when it is public. IPv6 forms that embed an IPv4
 * address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`)
 * are judged by the IPv4 address they carry.
 */
export function blockedReason(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (isIPv4(bare)) {
    const hit = V4_RANGES.find(([net, prefix]) => {
      const one = new BlockList();
      one.addSubnet(net, prefix, 'ipv4');
      return one.check(bare, 'ipv4');
    });
    return hit ? `${hit[2]} address` : null;
  }
  const b = ipv6Bytes(bare);
  if (!b) return 'not an IP address';
  let embedded: string | null = null;
  if (zero(b, 0, 10) && b[10] === 0xff && b[11] === 0xff)
    embedded = v4Of(b, 12); // ::ffff:0:0/96
  else if (zero(b, 0, 12) && !zero(b, 12, 16) && !(zero(b, 12, 15) && b[15] === 1))
    embedded = v4Of(b, 12); // ::/96
  else if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(b, 4, 12))
    embedded = v4Of(b, 12); // 64:ff9b::/96
  else if (b[0] === 0x20 && b[1] === 0x02)
    embedded = v4Of(b, 2); // 2002::/16
  else if (zero(b, 0, 8) && b[8] === 0xff && b[9] === 0xff && zero(b, 10, 12)) embedded = v4Of(b, 12); // ::ffff:0:a.b.c.d (SIIT)
  if (embedded !== null) {
    const inner = blockedReason(embedded);
    return inner ? `${inner} (embedded in IPv6)` : null;
  }
  const normalized = bare.replace(/%.*$/, '');
  if (!V6.check(normalized, 'ipv6')) return null;
  const hit = V6_RANGES.find(([net, prefix]) => {
    const one = new BlockList();
    one.addSubnet(net, prefix, 'ipv6');
    return one.check(normalized, 'ipv6');
  });
  return `${hit?.[2] ?? 'reserved'} address`;
}

export function isBlockedAddress(address: string): boolean {
  return blockedReason(address) !== null;
}

// ───────────────────────── the client ─────────────────────────

export type OutboundErrorKind = 'bad_url' | 'refused' | 'network' | 'timeout' | 'too_large' | 'redirects';

/** Why an outbound request did not produce an answer. The message never holds the URL's path or query, nor headers. */
export class OutboundHttpError extends Error {
  constructor(
    readonly kind: OutboundErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface OutboundRequest {
  readonly method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly url: string;
  readonly headers?: Record<string, string>;
  /** Sent byte for byte (signed bodies). */
  readonly body?: string | Buffer;
  /** Connection to last byte, redirects included. */
  readonly timeoutMs?: number;
  /** Response body limit. */
  readonly maxBytes?: number;
  /** Redirects followed by hand, at most 5; 0 = none (a 3xx is returned as the answer). */
  readonly maxRedirects?: number;
}

export interface OutboundResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The URL that answered (after redirects). */
  readonly url: string;
  text(): string;
}

export const OUTBOUND_DEFAULTS = { timeoutMs: 15_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 5 } as const;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers kept when a redirect changes origin; every other one (keys, credentials, signatures) is dropped. */
const CROSS_ORIGIN_SAFE = new Set(['accept', 'accept-language', 'user-agent', 'content-type']);

/**
 * Connections kept open between requests to one host and port (issue 16 item 3: a new TCP connection
 * per reply or webhook was ~8 % of the worker's CPU in the AI round). Only a new connection resolves
 * and checks an address (the `lookup` hook); a kept one stays on the address that was checked when it
 * opened. An idle connection is closed after 4 s, or sooner when the server's `Keep-Alive: timeout`
 * says so; a request that failed or timed out destroys its connection.
 */
export const OUTBOUND_KEEP_ALIVE = { keepAlive: true, timeout: 4_000, maxSockets: 64, maxFreeSockets: 16 } as const;

@Injectable()
export class OutboundHttp implements OnModuleDestroy {
  private readonly agents = { http: new HttpAgent(OUTBOUND_KEEP_ALIVE), https: new HttpsAgent(OUTBOUND_KEEP_ALIVE) };

  constructor(@Inject(APP_CONFIG) private readonly config: Pick<AppConfig, 'outbound'>) {}

  onModuleDestroy(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private get allowPrivate(): boolean {
    return this.config.outbound.allowPrivateNetworks;
  }

  /** Parses and checks a URL's scheme (and, for an IP literal, its address). */
  checkUrl(value: string): URL {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new OutboundHttpError('bad_url', 'not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new OutboundHttpError('bad_url', 'only http and https URLs are allowed');
    if (url.username || url.password) throw new OutboundHttpError('bad_url', 'URLs with credentials are not allowed');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !this.allowPrivate) {
      const reason = blockedReason(host);
      if (reason) throw new OutboundHttpError('refused', `refused: ${reason}`);
    }
    return url;
  }

  /** Resolves a URL's host and refuses it when any address is blocked (for checks when a URL is saved). */
  async assertAllowed(value: string): Promise<URL> {
    const url = this.checkUrl(value);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (this.allowPrivate || isIP(host)) return url;
    await new Promise<void>((resolve, reject) =>
      this.lookup(host, { all: true }, (error) => {
        if (!error) return resolve();
        reject(error instanceof OutboundHttpError ? error : new OutboundHttpError('refused', 'host does not resolve'));
      }),
    );
    return url;
  }

  /** `assertAllowed` for a request field: 400 `validation_failed` naming it. */
  async assertAllowedField(value: string, field: string): Promise<URL> {
    try {
      return await this.assertAllowed(value);
    } catch (error) {
      if (!(error instanceof OutboundHttpError)) throw error;
      throw AppException.field(field, error.kind === 'bad_url' ? 'must be an http(s) URL' : `is ${error.message}`);
    }
  }

  /** DNS (all addresses of a name). A seam for tests that stand in for a public DNS name. */
  resolver: (
    hostname: string,
    family: 0 | 4 | 6,
    callback: (error: Error | null, addresses: LookupAddress[]) => void,
  ) => void = (hostname, family, callback) =>
    dnsLookup(hostname, { all: true, family }, (error, addresses) => callback(error, addresses ?? []));

  /** Why `address` (a resolved address of `hostname`) must not be reached; null when it may. */
  blockedReasonFor(_hostname: string, address: string): string | null {
    return blockedReason(address);
  }

  async request(req: OutboundRequest): Promise<OutboundResponse> {
    const timeoutMs = req.timeoutMs ?? OUTBOUND_DEFAULTS.timeoutMs;
    const maxBytes = req.maxBytes ?? OUTBOUND_DEFAULTS.maxBytes;
    const maxRedirects = Math.min(req.maxRedirects ?? OUTBOUND_DEFAULTS.maxRedirects, 5);
    const deadline = Date.now() + timeoutMs;
    let url = this.checkUrl(req.url);
    let method: string = req.method ?? 'GET';
    let body = req.body;
    let headers: Record<string, string> = { ...req.headers };
    for (let hop = 0; ; hop++) {
      const response = await this.once(url, method, headers, body, deadline, maxBytes, timeoutMs);
      const location = response.headers.location;
      if (!REDIRECTS.has(response.status) || typeof location !== 'string') return response;
      // maxRedirects 0: the caller follows none and sees the 3xx itself.
      if (maxRedirects === 0) return response;
      if (hop >= maxRedirects) throw new OutboundHttpError('redirects', `more than ${maxRedirects} redirects`);
      let next: URL;
      try {
        next = this.checkUrl(new URL(location, url).toString());
      } catch (error) {
        if (error instanceof OutboundHttpError) throw new OutboundHttpError(error.kind, `redirect ${error.message}`);
        throw error;
      }
      if (next.origin !== url.origin) {
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => CROSS_ORIGIN_SAFE.has(k.toLowerCase())));
      }
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers = Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'content-type'));
      }
      url = next;
    }
  }

  /**
   * DNS for a request: every address is checked and the socket connects to one of those addresses
   * (Node hands this function's answer straight to the connect call).
   */
  readonly lookup = (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: (error: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void,
  ): void => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    this.resolver(hostname, family, (error, addresses) => {
      if (error) return callback(error);
      if (!addresses.length) return callback(Object.assign(new Error('host does not resolve'), { code: 'ENOTFOUND' }));
      if (!this.allowPrivate) {
        for (const a of addresses) {
          const reason = this.blockedReasonFor(hostname, a.address);
          if (reason) {
            return callback(
              Object.assign(new OutboundHttpError('refused', `refused: the host resolves to a ${reason}`), {
                code: 'EBLOCKED',
              }),
            );
          }
        }
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

  private once(
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: string | Buffer | undefined,
    deadline: number,
    maxBytes: number,
    timeoutMs: number,
  ): Promise<OutboundResponse> {
    return new Promise((resolve, reject) => {
      const remaining = deadline - Date.now();
      if (remaining <= 0)
        return reject(new OutboundHttpError('timeout', `no complete answer within ${timeoutMs / 1000} s`));
      const https = url.protocol === 'https:';
      const send = https ? httpsRequest : httpRequest;
      const outHeaders: Record<string, string | number> = { ...headers };
      if (body !== undefined) outHeaders['content-length'] = Buffer.byteLength(body);
      let settled = false;
      const fail = (error: OutboundHttpError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        request.destroy();
        reject(error);
      };
      const request = send(
        url,
        {
          method,
          headers: outHeaders,
          lookup: this.lookup as unknown as LookupFunction,
          agent: https ? this.agents.https : this.agents.http,
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const declared = Number(res.headers['content-length']);
          if (Number.isFinite(declared) && declared > maxBytes)
            return fail(new OutboundHttpError('too_large', 'the answer is larger than the limit'));
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > maxBytes) return fail(new OutboundHttpError('too_large', 'the answer is larger than the limit'));
            chunks.push(chunk);
          });
          res.on('error', () => fail(new OutboundHttpError('network', 'network error (connection reset)')));
          res.on('end', () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            const data = Buffer.concat(chunks);
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: data,
              url: url.toString(),
              text: () => data.toString('utf8'),
            });
          });
        },
      );
      const timer = setTimeout(
        () => fail(new OutboundHttpError('timeout', `no complete answer within ${timeoutMs / 1000} s`)),
        remaining,
      );
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (error instanceof OutboundHttpError) return fail(error);
        fail(new OutboundHttpError('network', `network error (${error.code ?? 'unknown'})`));
      });
      if (body !== undefined) request.end(body);
      else request.end();
    });
  }
}
