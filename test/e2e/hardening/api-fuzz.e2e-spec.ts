import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { type Session, signupWorkspace } from '../../utils/sessions';
import { sql } from '../inbox/inbox-helpers';

type Schema = {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
};
type Operation = {
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
};
type OpenApi = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

const REQUESTS_PER_OPERATION = 6;
const SEED = 9009;
const TIME_BUDGET_MS = 45_000;

/** Bad values: wrong types, NUL, huge, deeply nested, unknown fields. */
const badValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string().map((s) => `${s}\u0000${s}`),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 3 }),
  fc.constant('x'.repeat(120_000)),
  fc.integer({ min: 65, max: 300 }).map((depth) => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown),
  fc.constant('2026-13-45T99:99:99Z'),
  fc.constant('not-a-uuid'),
  fc.constant(-1),
  fc.constant(Number.MAX_SAFE_INTEGER),
  fc.constant(''),
);
const badId = fc.constantFrom(
  '00000000-0000-4000-8000-000000000000',
  'not-a-uuid',
  '%00',
  'a'.repeat(300),
  '..%2F..%2Fetc',
  '-1',
  "1'OR'1'='1",
);
const badQuery = fc.record(
  {
    limit: fc.constantFrom('-1', '0', '101', 'abc', '1e309', '%00'),
    cursor: fc.constantFrom('bogus', 'eyJhIjoxfQ', '%00', 'x'.repeat(2000)),
    search: fc.constantFrom('a%00b', '%25', '%FF%FE', 'x'.repeat(5000)),
    status: fc.constantFrom('NOPE', '%00', ''),
    unknownField: fc.constant('1'),
  },
  { requiredKeys: [] },
);

/**
 * Issue 9 item 7: every operation of the OpenAPI document gets generated bad input; no 5xx, every
 * error body has DESIGN §2's shape, and no 4xx leaves a row behind.
 */
describe('API fuzz over the OpenAPI document', () => {
  let t: TestApp;
  let admin: Session;
  let doc: OpenApi;
  let tables: string[] = [];
  beforeAll(async () => {
    t = await createTestApp();
    admin = await signupWorkspace(t, 'Fuzz');
    doc = (await t.http.get('/docs-json').expect(200)).body as OpenApi;
    tables = (
      await sql<{ t: string }>(
        t,
        `SELECT quote_ident(table_name) AS t FROM information_schema.tables
          WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT IN ('migrations')`,
      )
    ).map((r) => r.t);
  });
  afterAll(() => t.close());

  async function fingerprint(): Promise<string> {
    const rows = await sql<{ f: string }>(
      t,
      `SELECT concat_ws(',', ${tables.map((name) => `(SELECT count(*) FROM ${name})`).join(', ')}) AS f`,
    );
    return rows[0]!.f;
  }

  function resolve(schema: Schema | undefined): Schema | undefined {
    if (!schema) return undefined;
    if (schema.$ref) return resolve(doc.components?.schemas?.[schema.$ref.split('/').pop()!]);
    if (schema.allOf)
      return { type: 'object', properties: Object.assign({}, ...schema.allOf.map((s) => resolve(s)?.properties)) };
    return schema;
  }

  function bodyArbitrary(op: Operation): fc.Arbitrary<unknown> {
    const schema = resolve(op.requestBody?.content?.['application/json']?.schema);
    const keys = Object.keys(schema?.properties ?? {});
    const wrongFields =
      keys.length > 0
        ? fc.record(Object.fromEntries(keys.map((k) => [k, badValue])), { requiredKeys: [] })
        : fc.dictionary(fc.string({ maxLength: 8 }), badValue, { maxKeys: 4 });
    return fc.oneof(
      wrongFields,
      wrongFields.map((o) => ({ ...(o as object), unexpectedField: 'x' })),
      badValue,
      fc.constant('{"unterminated": '),
    );
  }

  it('answers every operation without a 5xx, with DESIGN §2 error bodies, and no write on a 4xx', async () => {
    const started = Date.now();
    const failures: string[] = [];
    let operations = 0;
    let requests = 0;
    const methods = ['get', 'post', 'put', 'patch', 'delete'] as const;
    const entries = Object.entries(doc.paths).flatMap(([path, item]) =>
      methods.filter((m) => item[m]).map((m) => ({ path, method: m, op: item[m]! })),
    );
    let index = 0;
    for (const { path, method, op } of entries) {
      index++;
      operations++;
      const perOp = Date.now() - started > TIME_BUDGET_MS ? 2 : REQUESTS_PER_OPERATION;
      const ids = fc.sample(badId, { numRuns: perOp, seed: SEED + index });
      const bodies = fc.sample(bodyArbitrary(op), { numRuns: perOp, seed: SEED + index });
      const queries = fc.sample(badQuery, { numRuns: perOp, seed: SEED + index });
      for (let i = 0; i < perOp; i++) {
        const url = path.replace(/\{[^}]+\}/g, ids[i]!);
        const query = Object.entries(queries[i]!)
          .map(([k, v]) => `${k}=${v}`)
          .join('&');
        const before = method === 'get' ? '' : await fingerprint();
        let req = t.http[method](`${url}${query ? `?${query}` : ''}`).set(admin.headers);
        if (method !== 'get' && method !== 'delete') {
          const body = bodies[i];
          req = req
            .set('content-type', 'application/json')
            .send(typeof body === 'string' ? body : JSON.stringify(body));
        }
        const res = await req;
        requests++;
        const label = `${method.toUpperCase()} ${path} #${i} → ${res.status}`;
        if (res.status >= 500) failures.push(`${label} ${JSON.stringify(res.body).slice(0, 200)}`);
        if (res.status >= 400) {
          const b = res.body as Record<string, unknown>;
          const shaped =
            b.statusCode === res.status &&
            typeof b.code === 'string' &&
            /^[a-z_]+$/.test(b.code) &&
            typeof b.message === 'string' &&
            typeof b.requestId === 'string' &&
            (b.details === undefined ||
              (Array.isArray(b.details) &&
                b.details.every(
                  (d: { field?: unknown; message?: unknown }) =>
                    typeof d.field === 'string' && typeof d.message === 'string',
                )));
          if (!shaped) failures.push(`${label} error body not DESIGN §2: ${JSON.stringify(b).slice(0, 200)}`);
          if (method !== 'get' && (await fingerprint()) !== before) failures.push(`${label} left a write behind`);
        }
      }
    }
    console.log(`API fuzz: ${operations} operations, ${requests} requests, ${Date.now() - started} ms`);
    expect(failures).toEqual([]);
    expect(operations).toBeGreaterThan(80);
  }, 120_000);
});
