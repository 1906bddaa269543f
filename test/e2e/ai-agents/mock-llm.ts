import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  readonly model: string;
  readonly temperature: number;
  readonly messages: { role: string; content: string }[];
}

/**
 * A local OpenAI-compatible server: `GET /v1/models`, `POST /v1/chat/completions`. Records every
 * chat request; answers with what `answer` returns (by default a reply naming the first price it
 * was given); can fail the next N calls.
 */
export class MockLlm {
  readonly chats: ChatRequest[] = [];
  answer: (request: ChatRequest) => string = (r) => {
    const system = r.messages[0]?.content ?? '';
    const price = system.match(/Price: (.+)/)?.[1];
    return price ? `Sure! It costs ${price}.` : 'Let me check that for you.';
  };
  failures = 0;
  private server: Server;
  url = '';

  private constructor() {
    this.server = createServer((req, res) => this.handle(req, res));
  }

  static async start(): Promise<MockLlm> {
    const mock = new MockLlm();
    await new Promise<void>((resolve) => mock.server.listen(0, '127.0.0.1', resolve));
    mock.url = `http://127.0.0.1:${(mock.server.address() as AddressInfo).port}/v1`;
    return mock;
  }

  reset(): void {
    this.chats.length = 0;
    this.failures = 0;
    this.answer = new MockLlm().answer;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'GET' && req.url === '/v1/models') {
        return send(200, {
          object: 'list',
          data: [
            { id: 'mock-small', object: 'model' },
            { id: 'mock-large', object: 'model' },
          ],
        });
      }
      if (req.method === 'POST' && req.url === '/v1/chat/completions') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatRequest;
        this.chats.push(body);
        if (this.failures > 0) {
          this.failures--;
          return send(500, { error: { message: 'mock failure' } });
        }
        return send(200, {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content: this.answer(body) }, finish_reason: 'stop' }],
        });
      }
      send(404, { error: { message: 'not found' } });
    });
  }
}
