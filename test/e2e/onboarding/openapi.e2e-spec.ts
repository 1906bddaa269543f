import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TestApp, createTestApp } from '../../utils/test-app';

type Operation = {
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>;
};

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** The document is walked: operations added later (new controllers) are held to the same rules. */
describe('OpenAPI document (/docs-json)', () => {
  let t: TestApp;
  let doc: Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };
  let operations: { id: string; path: string; method: string; op: Operation }[];

  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.http.get('/docs-json').expect(200)).body;
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((method) => ({
        id: `${method.toUpperCase()} ${path}`,
        path,
        method,
        op: item[method]!,
      })),
    );
  }, 180_000);
  afterAll(() => t.close());

  it('gives every operation a summary', () => {
    expect(operations.length).toBeGreaterThan(50);
    expect(operations.filter(({ op }) => !op.summary?.trim()).map(({ id }) => id)).toEqual([]);
  });

  it('declares x-workspace-id as an apiKey security scheme next to the bearer token', () => {
    const schemes = (doc.components as { securitySchemes: Record<string, Record<string, string>> }).securitySchemes;
    expect(schemes.workspace).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-workspace-id' });
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    // No operation asks for the header as a parameter any more: Authorize sets it once.
    const withHeader = operations.filter(({ op }) =>
      (op.parameters ?? []).some((p) => p.name.toLowerCase() === 'x-workspace-id'),
    );
    expect(withHeader.map(({ id }) => id)).toEqual([]);
    const conversations = doc.paths['/conversations']!.get!;
    expect(conversations.security).toEqual(expect.arrayContaining([{ bearer: [], workspace: [] }, { bearer: [] }]));
  });

  it('marks public operations with an explicit empty security list', () => {
    expect(doc.paths['/auth/login']!.post!.security).toEqual([]);
    expect(doc.paths['/health']!.get!.security).toEqual([]);
    expect(operations.filter(({ op }) => op.security === undefined).map(({ id }) => id)).toEqual([]);
  });

  it('types every list response as a page (nextCursor and a typed array)', () => {
    const lists = operations.filter(
      ({ method, op }) => method === 'get' && (op.parameters ?? []).some((p) => p.name === 'cursor'),
    );
    expect(lists.length).toBeGreaterThanOrEqual(15);
    // A page: `nextCursor` plus a typed array (`data` for resource lists; a report has `rows` + `columns`).
    const untyped = lists.filter(({ op }) => {
      const schema = op.responses['200']?.content?.['application/json']?.schema;
      const resolved = schema && '$ref' in schema ? resolve(String(schema.$ref)) : schema;
      const props = (resolved?.properties ?? {}) as Record<string, Record<string, unknown>>;
      const items = Object.values(props)
        .filter((p) => p.type === 'array')
        .map((p) => p.items as Record<string, unknown> | undefined);
      return !props.nextCursor || !items.some((i) => i && (i.$ref || i.type));
    });
    expect(untyped.map(({ id }) => id)).toEqual([]);
  });

  it('documents the shared error responses with the DESIGN §2 error schema', () => {
    const error = resolve('#/components/schemas/ErrorResponse');
    expect(error.required).toEqual(expect.arrayContaining(['statusCode', 'code', 'message', 'requestId']));
    const missing: string[] = [];
    for (const { id, path, op } of operations) {
      const secured = (op.security ?? []).length > 0;
      const expected = [...(secured ? ['400', '401', '403'] : []), ...(path.includes('{') ? ['404'] : [])];
      if (op.requestBody) expected.push('413');
      for (const code of expected) {
        const ref = op.responses[code]?.content?.['application/json']?.schema?.$ref;
        if (ref !== '#/components/schemas/ErrorResponse') missing.push(`${id} ${code}`);
      }
    }
    expect(missing).toEqual([]);
    expect(doc.paths['/auth/login']!.post!.responses['429']).toBeDefined();
  });

  it('declares the signature headers of the webhook receivers', () => {
    const custom = doc.paths['/custom-channel/{id}/inbound']!.post!;
    expect(custom.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'X-Service-Signature', required: true })]),
    );
    const platform = doc.paths['/webhooks/{platform}']!.post!;
    const headers = (platform.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
    expect(headers).toEqual(
      expect.arrayContaining(['X-Hub-Signature-256', 'X-Telegram-Bot-Api-Secret-Token', 'X-Line-Signature']),
    );
    expect(custom.responses['401']).toBeDefined();
  });

  it('has servers, global tags covering every operation tag, and a license', () => {
    expect((doc.servers as { url: string }[])[0]!.url).toBe(t.config.publicBaseUrl);
    expect((doc.info as { license?: { name: string } }).license?.name).toBe('MIT');
    const tags = new Set((doc.tags as { name: string }[]).map((tag) => tag.name));
    const used = new Set(operations.flatMap(({ op }) => (op as { tags?: string[] }).tags ?? []));
    expect([...used].filter((tag) => !tags.has(tag))).toEqual([]);
  });

  it('has no nullable schema without a type (generators reject it)', () => {
    const bad: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (!node || typeof node !== 'object') return;
      const obj = node as Record<string, unknown>;
      if (obj.nullable === true && !obj.type && !obj.$ref && !obj.allOf) bad.push(where);
      for (const [key, value] of Object.entries(obj)) walk(value, `${where}/${key}`);
    };
    walk(doc.components, '#/components');
    expect(bad).toEqual([]);
  });

  it('keeps CORS off by default', async () => {
    const res = await t.http
      .options('/conversations')
      .set('Origin', 'http://localhost:5173')
      .set('Access-Control-Request-Method', 'GET');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  function resolve(ref: string): Record<string, unknown> {
    return ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<Record<string, unknown>>(
        (node, key) => node[key] as Record<string, unknown>,
        doc as Record<string, unknown>,
      );
  }
});
