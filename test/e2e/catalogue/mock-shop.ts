import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ShopRequest {
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly method: string;
}

export interface ShopAnswer {
  readonly status?: number;
  /** JSON-encoded unless it is a string (sent as is, e.g. broken JSON). */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Wait this long before answering (timeouts). */
  readonly delayMs?: number;
}

export type ShopRoute = (request: ShopRequest) => ShopAnswer;

/** A local HTTP server playing a shop's product API (127.0.0.1, random port). Routes by path. */
export class MockShop {
  readonly requests: ShopRequest[] = [];
  private readonly routes = new Map<string, ShopRoute>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private server: Server | null = null;
  private base = '';

  static async start(): Promise<MockShop> {
    const shop = new MockShop();
    await shop.listen();
    return shop;
  }

  url(path: string): string {
    return `${this.base}${path}`;
  }

  route(path: string, handler: ShopRoute): void {
    this.routes.set(path, handler);
  }

  requestsTo(path: string): ShopRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  private listen(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const request: ShopRequest = {
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        method: req.method ?? 'GET',
      };
      this.requests.push(request);
      const handler = this.routes.get(url.pathname);
      const answer: ShopAnswer = handler ? handler(request) : { status: 404, body: { error: 'not found' } };
      const send = (): void => {
        const body =
          answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
        res.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
        res.end(body);
      };
      if (answer.delayMs) {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          if (!res.destroyed) send();
        }, answer.delayMs);
        this.timers.add(timer);
      } else {
        send();
      }
    });
    return new Promise((resolve) => {
      this.server!.listen(0, '127.0.0.1', () => {
        this.base = `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
        resolve();
      });
    });
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

/** `items` split into pages of `size` (page numbers from 1; past the end: an empty list). */
export function pageOf<T>(items: readonly T[], page: number, size: number): T[] {
  return items.slice((page - 1) * size, page * size);
}

export function pageParam(request: ShopRequest): number {
  return Number(request.query.get('page') ?? '1');
}
