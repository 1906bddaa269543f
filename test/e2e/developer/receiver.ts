import { expect } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Delivery {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- payloads are read loosely in tests
  readonly body: { id: string; type: string; workspaceId: string; createdAt: string; data: Record<string, any> };
  readonly at: number;
}

/**
 * A developer's webhook receiver on 127.0.0.1:0. Records every POST; answers 200 unless a path was
 * told otherwise (`answer(path, status)`, `delay(path, ms)`); a 3xx points to `/elsewhere`.
 */
export class Receiver {
  readonly deliveries: Delivery[] = [];
  /** Products the shop at any GET path lists (one page). */
  shopItems = 4;
  private readonly answers = new Map<string, number>();
  private readonly delays = new Map<string, number>();
  private readonly inFlight = new Map<string, { now: number; max: number }>();
  private server: Server | null = null;
  private base = '';

  static async start(): Promise<Receiver> {
    const r = new Receiver();
    r.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const path = req.url ?? '/';
        if (req.method === 'GET') {
          // A tiny shop for the website sync: one page of products, then an empty page.
          const page = new URL(path, 'http://x').searchParams.get('page');
          res.writeHead(200, { 'content-type': 'application/json' });
          const items = Array.from({ length: r.shopItems }, (_, i) => ({
            id: `p${i + 1}`,
            name: `Product ${i + 1}`,
            price: 100 * (i + 1),
            currency: 'THB',
          }));
          res.end(JSON.stringify({ items: page === '1' ? items : [] }));
          return;
        }
        let body: Delivery['body'];
        try {
          body = JSON.parse(raw);
        } catch {
          body = { id: '', type: '', workspaceId: '', createdAt: '', data: {} };
        }
        r.deliveries.push({ path, headers: req.headers, raw, body, at: Date.now() });
        const status = r.answers.get(path.split('?')[0]!) ?? 200;
        const delay = r.delays.get(path.split('?')[0]!) ?? 0;
        const flight = r.inFlight.get(path) ?? { now: 0, max: 0 };
        flight.now++;
        flight.max = Math.max(flight.max, flight.now);
        r.inFlight.set(path, flight);
        setTimeout(() => {
          flight.now--;
          res.writeHead(status, {
            'content-type': 'text/plain',
            ...(status >= 300 && status < 400 ? { location: r.url('/elsewhere') } : {}),
          });
          res.end(status < 300 ? 'ok' : `no (${status})`);
        }, delay);
      });
    });
    await new Promise<void>((resolve) => r.server!.listen(0, '127.0.0.1', () => resolve()));
    r.base = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}`;
    return r;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  answer(path: string, status: number): void {
    this.answers.set(path, status);
  }

  /** Answers at `path` only after `ms`. */
  delay(path: string, ms: number): void {
    this.delays.set(path, ms);
  }

  /** The most POSTs to `path` that were being answered at one time. */
  maxInFlight(path: string): number {
    return this.inFlight.get(path)?.max ?? 0;
  }

  at(path: string): Delivery[] {
    return this.deliveries.filter((d) => d.path === path);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/**
 * Checks a delivery the way a developer would: the official Standard Webhooks verifier with each
 * given secret (during a rotation both must verify), and X-Service-Signature (`sha256=<hex HMAC of
 * the body>` keyed with the secret's decoded bytes) with the first.
 */
export function verify(d: Delivery, ...secrets: string[]): void {
  for (const secret of secrets) {
    const payload = new Webhook(secret).verify(d.raw, {
      'webhook-id': String(d.headers['webhook-id']),
      'webhook-timestamp': String(d.headers['webhook-timestamp']),
      'webhook-signature': String(d.headers['webhook-signature']),
    });
    expect(payload).toEqual(d.body);
  }
  const key = Buffer.from(secrets[0]!.replace(/^whsec_/, ''), 'base64');
  expect(d.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', key).update(d.raw).digest('hex')}`);
  expect(d.headers['webhook-id']).toBe(d.body.id);
  expect(Object.keys(d.body).sort()).toEqual(['createdAt', 'data', 'id', 'type', 'workspaceId']);
}
