/**
 * AI agent benchmark (issue 13): the built-in agent's answer latency (p50 / p95) over a
 * 10,000-item catalogue — the catalogue search on the database (trigram candidates, unaccent,
 * Levenshtein) plus choosing the items and writing the answer. Goal: p95 < 50 ms.
 *
 *   npm run build && node dist/bench/ai-agent.js
 *   BENCH_SHORT=1 node dist/bench/ai-agent.js          # 2,000 items, fewer questions (development)
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/ai-agent.js
 *
 * The service runs in this process (embedded PGlite in a temporary DATA_DIR, or a database it
 * creates and drops on DATABASE_URL's server). The catalogue is loaded through the feed API; the
 * questions go through `POST /ai-agents/:id/playground` and the figure is the `latencyMs` it reports
 * (the agent's own time, without HTTP), plus the round trip for reference.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { loadConfig } from '../src/core/config/app-config';
import { createApp } from '../src/create-app';

const SHORT = process.env.BENCH_SHORT === '1';
const ITEMS = SHORT ? 2_000 : 10_000;
const QUESTIONS = SHORT ? 60 : 300;
const WARM_UP = 10;

const BRANDS = [
  'Aurora',
  'Nimbus',
  'Orbit',
  'Pulse',
  'Boom',
  'Zenith',
  'Atlas',
  'Nova',
  'Vega',
  'Lumen',
  'Terra',
  'Polar',
  'Echo',
  'Summit',
  'Harbor',
  'Willow',
  'Cedar',
  'Falcon',
  'Quartz',
  'Ember',
];
const ADJECTIVES = [
  'Electric',
  'Wireless',
  'Compact',
  'Classic',
  'Pro',
  'Mini',
  'Smart',
  'Deluxe',
  'Ultra',
  'Eco',
  'Steel',
  'Bamboo',
  'Ceramic',
  'Leather',
  'Cotton',
  'Glass',
  'Digital',
  'Portable',
  'Foldable',
  'Premium',
];
const NOUNS = [
  'Kettle',
  'Toaster',
  'Blender',
  'Speaker',
  'Headphones',
  'Lamp',
  'Backpack',
  'Wallet',
  'Scarf',
  'Jacket',
  'Mug',
  'Teapot',
  'Skillet',
  'Knife',
  'Mat',
  'Bottle',
  'Watch',
  'Charger',
  'Keyboard',
  'Mouse',
  'Monitor',
  'Candle',
  'Pillow',
  'Clock',
  'Umbrella',
  'Puzzle',
  'Scooter',
  'Racket',
  'Grinder',
  'Mixer',
];
const CATEGORIES = ['Kitchen', 'Electronics', 'Home', 'Fashion', 'Sports', 'Toys', 'Coffee', 'Beauty'];

function pick<T>(list: readonly T[], n: number): T {
  return list[n % list.length] as T;
}

function product(i: number): Record<string, unknown> {
  const name = `${pick(BRANDS, i)} ${pick(ADJECTIVES, Math.floor(i / 20))} ${pick(NOUNS, Math.floor(i / 400) + i)} ${100 + (i % 900)}`;
  return {
    id: `bench-${i}`,
    name,
    price: 10 + (i % 500) + (i % 3 === 0 ? 0.5 : 0),
    currency: 'USD',
    sku: `SKU-${i}`,
    category: pick(CATEGORIES, i),
    stock: i % 7 === 0 ? 0 : i % 5 === 0 ? undefined : i % 40,
    description: `${name}: a bench product.`,
    images: [`https://img.example.com/${i}.jpg`],
  };
}

function typo(word: string): string {
  if (word.length < 5) return word;
  const i = 2 + (word.length % (word.length - 3));
  return word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
}

function question(n: number): string {
  const p = product((n * 7919) % ITEMS);
  const [brand, , noun] = String(p.name).split(' ');
  switch (n % 6) {
    case 0:
      return `how much is the ${brand} ${noun}?`;
    case 1:
      return `is the ${String(p.name).toLowerCase()} in stock?`;
    case 2:
      return `price of the ${brand} ${typo(String(noun).toLowerCase())} please`;
    case 3:
      return `${String(p.sku).toLowerCase()} price`;
    case 4:
      return `can I see a photo of the ${brand} ${noun}`;
    default:
      return 'do you sell garden hoses?';
  }
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sis-bench-ai-'));
  let databaseUrl: string | undefined;
  let dropDatabase: (() => Promise<void>) | null = null;
  if (process.env.DATABASE_URL) {
    const name = `bench_ai_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(process.env.DATABASE_URL);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dropDatabase = async () => {
      const c = new Client({ connectionString: process.env.DATABASE_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    };
  }
  const config = loadConfig({
    NODE_ENV: 'production',
    PORT: '0',
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(24).toString('hex'),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    LOG_LEVEL: 'warn',
    SIGNUP_RATE_LIMIT: '1000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const call = async (method: string, path: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
    return json;
  };
  try {
    const signup = await call(
      'POST',
      '/auth/signup',
      {
        workspaceName: 'Bench shop',
        name: 'Owner',
        email: `bench-${randomBytes(4).toString('hex')}@example.com`,
        password: 'password-123',
      },
      {},
    );
    const workspaceId = (signup.workspaces as { id: string }[])[0]!.id;
    const user = { authorization: `Bearer ${String(signup.accessToken)}`, 'x-workspace-id': workspaceId };
    const token = await call('POST', '/developer/tokens', { name: 'bench', scopes: ['catalog:write'] }, user);
    const feed = { authorization: `Bearer ${String(token.token)}` };
    const loadStart = performance.now();
    for (let from = 0; from < ITEMS; from += 500) {
      const items = Array.from({ length: Math.min(500, ITEMS - from) }, (_, k) => product(from + k));
      await call('PUT', '/catalog/feed/items', { items }, feed);
    }
    process.stdout.write(`catalogue: ${ITEMS} items loaded in ${Math.round(performance.now() - loadStart)} ms\n`);
    // What autovacuum does after a bulk load: the planner then knows the trigram index pays off.
    await app.get(DataSource).query('ANALYZE catalog_items');
    const agent = await call('POST', '/ai-agents', { name: 'Bench agent', provider: 'BUILTIN' }, user);
    const agentId = String(agent.id);

    const latencies: number[] = [];
    const roundTrips: number[] = [];
    let handoffs = 0;
    for (let n = 0; n < QUESTIONS + WARM_UP; n++) {
      const started = performance.now();
      const answer = await call('POST', `/ai-agents/${agentId}/playground`, { message: question(n) }, user);
      const roundTrip = performance.now() - started;
      if (n < WARM_UP) continue;
      latencies.push(Number(answer.latencyMs));
      roundTrips.push(roundTrip);
      if (answer.handoff) handoffs++;
    }
    const engine = databaseUrl ? 'PostgreSQL' : 'embedded PGlite';
    process.stdout.write(
      `built-in answer (${engine}, ${ITEMS} items, ${QUESTIONS} questions): ` +
        `p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p95 ${quantile(latencies, 0.95).toFixed(1)} ms ` +
        `(goal p95 < 50 ms); HTTP round trip p50 ${quantile(roundTrips, 0.5).toFixed(1)} ms, ` +
        `p95 ${quantile(roundTrips, 0.95).toFixed(1)} ms; handoffs ${handoffs}\n`,
    );
  } finally {
    await app.close();
    if (process.env.BENCH_KEEP_DB === '1') process.stdout.write(`kept database ${databaseUrl}\n`);
    else await dropDatabase?.();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
