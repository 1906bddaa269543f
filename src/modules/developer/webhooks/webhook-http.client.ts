import { Inject, Injectable } from '@nestjs/common';
import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { APP_CONFIG } from 'src/core/config/config.constants';
import type { AppConfig } from 'src/core/config/app-config';
import { isPrivateAddress } from 'src/core/http/outbound-url.service';

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const RESPONSE_EXCERPT_BYTES = 1024;

export interface WebhookHttpResult {
  /** The HTTP status, or null when no answer came (network error, timeout, refused address). */
  readonly statusCode: number | null;
  readonly durationMs: number;
  /** Why the attempt failed before an answer, else null. */
  readonly error: string | null;
  /** The first KB of the answer. */
  readonly responseExcerpt: string | null;
}

/**
 * The one place webhook deliveries touch the network: a POST with a 10 s timeout, redirects never
 * followed (Node's http client does not follow them; a 3xx is a failed attempt), and — unless
 * OUTBOUND_ALLOW_PRIVATE_NETWORKS — the address the host resolves to *at connection time* must not
 * be private, loopback or link-local (the lookup the socket uses is checked, so DNS rebinding
 * between the URL check and the request cannot slip through). Kept behind this small class so it
 * can move to the shared outbound HTTP client.
 */
@Injectable()
export class WebhookHttpClient {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    timeoutMs = WEBHOOK_TIMEOUT_MS,
  ): Promise<WebhookHttpResult> {
    const started = Date.now();
    const done = (partial: Omit<WebhookHttpResult, 'durationMs'>): WebhookHttpResult => ({
      ...partial,
      durationMs: Date.now() - started,
    });
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.resolve(done({ statusCode: null, error: 'invalid URL', responseExcerpt: null }));
    }
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return Promise.resolve(done({ statusCode: null, error: 'the URL must be http(s)', responseExcerpt: null }));
    }
    const allowPrivate = this.config.outbound.allowPrivateNetworks;
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (!allowPrivate && isIP(host) && isPrivateAddress(host)) {
      return Promise.resolve(
        done({ statusCode: null, error: 'refused: the URL points to a private address', responseExcerpt: null }),
      );
    }
    const lookup: LookupFunction = (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 0);
        const list = addresses as unknown as { address: string; family: number }[];
        if (!allowPrivate && (list.length === 0 || list.some((a) => isPrivateAddress(a.address)))) {
          return callback(new Error('refused: the host resolves to a private address'), '', 0);
        }
        if (options.all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
        const first = list[0]!;
        callback(null, first.address, first.family);
      });
    };
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: Omit<WebhookHttpResult, 'durationMs'>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(done(result));
      };
      const request = (target.protocol === 'https:' ? https : http).request(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': Buffer.byteLength(body).toString() },
          lookup,
          agent: false,
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            if (size < RESPONSE_EXCERPT_BYTES) chunks.push(chunk);
            size += chunk.length;
          });
          response.on('end', () =>
            finish({
              statusCode: response.statusCode ?? null,
              error: null,
              responseExcerpt: excerpt(Buffer.concat(chunks)),
            }),
          );
          response.on('error', (error) =>
            finish({ statusCode: response.statusCode ?? null, error: error.message, responseExcerpt: null }),
          );
        },
      );
      const timer = setTimeout(() => {
        finish({ statusCode: null, error: `no answer within ${timeoutMs / 1000} s (timeout)`, responseExcerpt: null });
        request.destroy();
      }, timeoutMs);
      request.on('error', (error) => finish({ statusCode: null, error: error.message, responseExcerpt: null }));
      request.end(body);
    });
  }
}

/** At most 1 KB of the answer as text (a cut multi-byte character is dropped). */
function excerpt(bytes: Buffer): string | null {
  if (bytes.length === 0) return null;
  return bytes
    .subarray(0, RESPONSE_EXCERPT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD$/, '')
    .replace(/\u0000/g, '');
}
