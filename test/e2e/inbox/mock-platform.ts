import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the mock received, exactly as it arrived. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, e.g. `/graph/v21.0/me/messages`. */
  readonly url: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The raw body bytes as text (signatures are checked on these). */
  readonly raw: string;
  readonly json: unknown;
}

interface Reply {
  readonly status: number;
  readonly body: unknown;
}

type Override = { readonly match: (r: RecordedRequest) => boolean; remaining: number; readonly reply: Reply };

/**
 * A local stand-in for the Graph API, the Telegram Bot API, the LINE Messaging API and a Custom
 * Channel outbound endpoint. Records every request; answers like the platforms do; can be told to
 * fail the next N matching requests.
 */
export class MockPlatform {
  readonly requests: RecordedRequest[] = [];
  private overrides: Override[] = [];
  private sequence = 0;
  private server: Server;
  url = '';

  private constructor() {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  static async start(): Promise<MockPlatform> {
    const mock = new MockPlatform();
    await new Promise<void>((resolve) => mock.server.listen(0, '127.0.0.1', resolve));
    mock.url = `http://127.0.0.1:${(mock.server.address() as AddressInfo).port}`;
    return mock;
  }

  /** Environment pointing the app's platform clients here. */
  env(): Record<string, string> {
    return {
      META_GRAPH_BASE_URL: `${this.url}/graph/v21.0`,
      TELEGRAM_API_BASE_URL: `${this.url}/telegram`,
      LINE_API_BASE_URL: `${this.url}/line`,
      OUTBOUND_RETRY_DELAYS: '0,0,0,0,0',
      INBOUND_RETRY_DELAYS: '0,0',
    };
  }

  /** The next `count` requests whose path contains `pathPart` get this answer. */
  fail(pathPart: string, count: number, status = 500, body: unknown = { error: { message: 'mock failure' } }): void {
    this.overrides.push({ match: (r) => r.path.includes(pathPart), remaining: count, reply: { status, body } });
  }

  /** Requests whose path contains `pathPart`. */
  received(pathPart: string, method?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path.includes(pathPart) && (!method || r.method === method));
  }

  reset(): void {
    this.requests.length = 0;
    this.overrides = [];
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = raw ? JSON.parse(raw) : null;
      } catch {
        json = null;
      }
      const url = req.url ?? '/';
      const record: RecordedRequest = {
        method: req.method ?? 'GET',
        url,
        path: url.split('?')[0]!,
        headers: req.headers,
        raw,
        json,
      };
      this.requests.push(record);
      const reply = this.override(record) ?? this.answer(record);
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply.body));
    });
  }

  private override(record: RecordedRequest): Reply | null {
    const found = this.overrides.find((o) => o.remaining > 0 && o.match(record));
    if (!found) return null;
    found.remaining--;
    return found.reply;
  }

  private answer(r: RecordedRequest): Reply {
    const n = ++this.sequence;
    const body = (r.json ?? {}) as Record<string, unknown>;
    const p = r.path;
    // ---- Graph API
    if (p.startsWith('/graph/')) {
      const rest = p.replace(/^\/graph\/v[\d.]+/, '');
      if (rest === '/me/messages')
        return ok({ recipient_id: (body.recipient as { id?: string })?.id, message_id: `m_out_${n}` });
      if (rest === '/oauth/access_token') return ok({ access_token: 'EAAG-exchanged-token', token_type: 'bearer' });
      if (rest === '/debug_token') {
        return ok({
          data: { granular_scopes: [{ scope: 'whatsapp_business_management', target_ids: ['waba-signup'] }] },
        });
      }
      if (/^\/[^/]+\/phone_numbers$/.test(rest))
        return ok({ data: [{ id: 'phone-signup', display_phone_number: '+1 555 0100' }] });
      if (/^\/[^/]+\/subscribed_apps$/.test(rest)) return ok({ success: true });
      if (/^\/[^/]+\/messages$/.test(rest)) {
        return ok({
          messaging_product: 'whatsapp',
          contacts: [{ wa_id: body.to }],
          messages: [{ id: `wamid.OUT${n}` }],
        });
      }
      if (r.method === 'GET' && /^\/[^/]+$/.test(rest)) {
        return ok(
          r.url.includes('first_name')
            ? { first_name: 'Mia', last_name: 'Messenger', profile_pic: 'https://cdn.example.com/mia.jpg' }
            : { name: 'Ida Insta', username: 'ida' },
        );
      }
    }
    // ---- Telegram Bot API
    const telegram = /^\/telegram\/bot([^/]+)\/(\w+)$/.exec(p);
    if (telegram) {
      const method = telegram[2];
      if (telegram[1] === 'bad-token')
        return { status: 401, body: { ok: false, error_code: 401, description: 'Unauthorized' } };
      if (method === 'getMe') {
        const botId = 7_000_000 + (hash(telegram[1]!) % 1_000_000);
        return ok({
          ok: true,
          result: { id: botId, is_bot: true, first_name: 'Shop Bot', username: `shop_${botId}_bot` },
        });
      }
      if (method === 'answerCallbackQuery') return ok({ ok: true, result: true });
      if (method === 'setWebhook' || method === 'deleteWebhook')
        return ok({ ok: true, result: true, description: 'Webhook was set' });
      if (method === 'sendMessage' || method === 'sendPhoto') {
        return ok({
          ok: true,
          result: { message_id: 500 + n, chat: { id: body.chat_id, type: 'private' }, date: 1763800000 },
        });
      }
    }
    // ---- LINE Messaging API
    if (p === '/line/v2/bot/info') {
      return r.headers.authorization === 'Bearer bad-token'
        ? { status: 401, body: { message: 'Authentication failed' } }
        : ok({
            userId: `Ubot${hash(String(r.headers.authorization)).toString(16).padStart(8, '0')}`,
            basicId: '@shop',
            displayName: 'Shop on LINE',
          });
    }
    if (p === '/line/v2/bot/message/reply' || p === '/line/v2/bot/message/push')
      return ok({ sentMessages: [{ id: `${n}`, quoteToken: 'q' }] });
    if (p.startsWith('/line/v2/bot/profile/'))
      return ok({ displayName: 'Lin Line', userId: p.split('/').pop(), pictureUrl: 'https://cdn.example.com/lin.jpg' });
    // ---- Custom Channel outbound endpoint
    if (p.startsWith('/custom/')) return ok({ ok: true });
    return { status: 404, body: { error: 'not mocked', path: p } };
  }
}

/** A stable number per string (bot ids per token). */
function hash(value: string): number {
  let h = 0;
  for (const ch of value) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
  return h;
}

function ok(body: unknown): Reply {
  return { status: 200, body };
}
