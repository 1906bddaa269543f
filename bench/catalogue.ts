/**
 * Catalogue benchmark (DESIGN §13): feed upsert of 500 items, CSV preview + commit of 100,000 rows
 * with the server's peak resident memory, and a 10,000-product, 100-page website sync.
 *
 *   npm run build && node dist/bench/catalogue.js
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/catalogue.js
 *
 * The service runs as a child process (`dist/src/main.js`, role `all`, inline jobs unless REDIS_URL
 * is set) so its memory is measured alone (Linux /proc: VmHWM, reset through clear_refs before the
 * import). With DATABASE_URL the bench creates and drops its own database on that server; without
 * it the service uses the embedded PGlite, which lives inside the service process (its memory counts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

interface Json {
  [key: string]: unknown;
}

import type { BenchContext, BenchRow } from './lib/types';
import { below, round as round1 } from './lib/types';

export const name = 'catalogue';

let FEED_ROUNDS = 10;
let CSV_ROWS = 100_000;
let SITE_PRODUCTS = 10_000;
const SITE_PAGE_SIZE = 100;

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function procStatus(pid: number, key: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Resets the process's peak RSS (VmHWM) so the next reading covers only what follows. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

class Api {
  constructor(
    private readonly base: string,
    public headers: Record<string, string> = {},
  ) {}

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Json> {
    const res = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        ...this.headers,
        ...headers,
        ...(body !== undefined && !(body instanceof FormData) ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 300)}`);
    return text ? (JSON.parse(text) as Json) : {};
  }
}

async function startService(env: Record<string, string>): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}`);
    try {
      const res = await fetch(`${base}/health`);
      if (res.ok) return { child, base };
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) throw new Error('service did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
}

function buildCsv(rows: number): string {
  const lines = ['Product ID,Product Name,Unit price,Currency,Description,SKU,Category,Qty,Image URLs,Tags'];
  for (let i = 1; i <= rows; i++) {
    lines.push(
      `P-${i},"Product ${i}, model ${i % 97}","${(1000 + (i % 5000)).toLocaleString('en-US')}.${String(i % 100).padStart(2, '0')}",THB,` +
        `"A sturdy everyday product number ${i} with a description long enough to look real",SKU-${i},Category ${i % 40},${i % 50},` +
        `"https://cdn.example.com/p/${i}/1.jpg, https://cdn.example.com/p/${i}/2.jpg",tag${i % 10};bench`,
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

async function mockShop(
  products: number,
  pageSize: number,
): Promise<{ server: Server; url: string; requests: () => number }> {
  let requests = 0;
  const catalogue = Array.from({ length: products }, (_, i) => ({
    id: `site-${i + 1}`,
    name: `Site product ${i + 1}`,
    price: 100 + (i % 900),
    currency: 'THB',
    description: `Website product ${i + 1}`,
    sku: `WS-${i + 1}`,
    category: `Cat ${i % 25}`,
    stock: i % 30,
    images: [`https://shop.example.com/img/${i + 1}.jpg`],
  }));
  const server = createServer((req, res) => {
    requests++;
    const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('page') ?? '1');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ items: catalogue.slice((page - 1) * pageSize, page * pageSize) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/products?page={page}`,
    requests: () => requests,
  };
}

async function waitRun(api: Api, websiteId: string, runId: string): Promise<Json> {
  for (;;) {
    const runs = await api.call('GET', `/catalog/websites/${websiteId}/runs?limit=10`);
    const run = (runs.data as Json[]).find((r) => r.id === runId);
    if (run && run.status !== 'RUNNING') return run;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function once(adminUrl: string | undefined): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sis-bench-'));
  let databaseUrl: string | undefined;
  let dbName: string | undefined;
  if (adminUrl) {
    dbName = `sis_bench_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const url = new URL(adminUrl);
    url.pathname = `/${dbName}`;
    databaseUrl = url.toString();
  }
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    JWT_SECRET: 'bench-jwt-secret-0123456789',
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    OUTBOUND_ALLOW_PRIVATE_NETWORKS: 'true',
    SIGNUP_ENABLED: 'true',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATABASE_URL: '' }),
  };
  const { child, base } = await startService(env);
  const pid = child.pid!;
  const results: Record<string, unknown> = {
    engine: databaseUrl ? 'postgresql' : 'embedded PGlite',
    jobs: process.env.REDIS_URL ? 'redis' : 'inline',
  };
  const shop = await mockShop(SITE_PRODUCTS, SITE_PAGE_SIZE);
  try {
    const api = new Api(base);
    const signup = await api.call('POST', '/auth/signup', {
      workspaceName: 'Bench',
      name: 'Bench',
      email: `bench-${randomBytes(4).toString('hex')}@example.com`,
      password: 'password-123',
    });
    const workspaceId = (signup.workspaces as Json[])[0]!.id as string;
    api.headers = { authorization: `Bearer ${String(signup.accessToken)}`, 'x-workspace-id': workspaceId };
    const token = await api.call('POST', '/developer/tokens', { name: 'bench', scopes: ['catalog:write'] });
    const feed = new Api(base, { authorization: `Bearer ${String(token.token)}` });

    // 1. Feed upsert, 500 items: the first request creates, the next ones update.
    const feedTimes: number[] = [];
    for (let round = 0; round < FEED_ROUNDS; round++) {
      const items = Array.from({ length: 500 }, (_, i) => ({
        id: `feed-${i}`,
        name: `Feed product ${i}`,
        price: 1000 + i + round,
        currency: 'THB',
        description: `Feed product ${i}, round ${round}`,
        sku: `F-${i}`,
        category: `Feed ${i % 10}`,
        stock: (i + round) % 20,
        images: [`https://feed.example.com/${i}.jpg`],
      }));
      const start = process.hrtime.bigint();
      await feed.call('PUT', '/catalog/feed/items', { items });
      feedTimes.push(ms(start));
    }
    results.feedUpsert500 = {
      firstCreateMs: Math.round(feedTimes[0]!),
      updateMedianMs: Math.round(median(feedTimes.slice(1))),
      updateMaxMs: Math.round(Math.max(...feedTimes.slice(1))),
    };

    // 2. CSV import, 100,000 rows.
    const csv = buildCsv(CSV_ROWS);
    const rssBefore = procStatus(pid, 'VmRSS');
    const peakReset = resetPeak(pid);
    let sampledPeak = rssBefore;
    const sampler = setInterval(() => {
      sampledPeak = Math.max(sampledPeak, procStatus(pid, 'VmRSS'));
    }, 20);
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
    let start = process.hrtime.bigint();
    const preview = await api.call('POST', '/catalog/import/preview', form);
    const previewMs = ms(start);
    const previewPeak = procStatus(pid, 'VmHWM');
    resetPeak(pid);
    start = process.hrtime.bigint();
    const commit = await api.call('POST', `/catalog/import/${String(preview.importId)}/commit`, {});
    const commitMs = ms(start);
    const commitPeak = procStatus(pid, 'VmHWM');
    const form2 = new FormData();
    form2.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
    const preview2 = await api.call('POST', '/catalog/import/preview', form2);
    start = process.hrtime.bigint();
    const recommit = await api.call('POST', `/catalog/import/${String(preview2.importId)}/commit`, {});
    const recommitMs = ms(start);
    clearInterval(sampler);
    results.csvImport100k = {
      fileMB: Math.round((Buffer.byteLength(csv) / 1024 / 1024) * 10) / 10,
      previewMs: Math.round(previewMs),
      commitMs: Math.round(commitMs),
      created: commit.created,
      errorCount: commit.errorCount,
      sameFileAgainCommitMs: Math.round(recommitMs),
      sameFileAgainUpdated: recommit.updated,
      sameFileAgainCreated: recommit.created,
      serverRssBeforeMB: Math.round(rssBefore),
      serverPeakRssPreviewMB: Math.round(previewPeak),
      serverPeakRssCommitMB: Math.round(commitPeak),
      serverPeakRssBothImportsMB: Math.round(peakReset ? procStatus(pid, 'VmHWM') : sampledPeak),
      serverPeakRssBothImportsSampledMB: Math.round(sampledPeak),
    };

    // 3. Website sync: 10,000 products over 100 pages (+ the empty page that ends the list).
    const website = await api.call('POST', '/catalog/websites', {
      name: 'Bench shop',
      url: shop.url,
      intervalMinutes: 1440,
    });
    const syncs: Json[] = [];
    for (const label of ['first (creates)', 'second (unchanged)']) {
      start = process.hrtime.bigint();
      const started = await api.call('POST', `/catalog/websites/${String(website.id)}/sync`, {});
      const run = await waitRun(api, String(website.id), String(started.runId));
      const wall = ms(start);
      syncs.push({
        run: label,
        status: run.status,
        pages: run.pages,
        fetched: run.fetched,
        created: run.created,
        unchanged: run.unchanged,
        runMs: new Date(String(run.finishedAt)).getTime() - new Date(String(run.startedAt)).getTime(),
        wallMs: Math.round(wall),
      });
    }
    results.websiteSync10k = { requests: shop.requests(), runs: syncs };
  } finally {
    shop.server.close();
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
    if (adminUrl && dbName) {
      const admin = new Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await admin.end();
    }
  }
  return results;
}

/** Feed upsert, CSV import (time and the server's peak RSS) and website sync on each engine. */
export async function run(ctx: BenchContext): Promise<BenchRow[]> {
  if (ctx.short) {
    FEED_ROUNDS = 3;
    CSV_ROWS = 5_000;
    SITE_PRODUCTS = 500;
  }
  const rows: BenchRow[] = [];
  const engines: [string, string | undefined][] = ctx.embedded ? [['embedded', undefined]] : [];
  if (ctx.databaseUrl) engines.push(['PG', ctx.databaseUrl]);
  for (const [engine, url] of engines) {
    ctx.log(`catalogue: ${engine}`);
    const r = await once(url);
    const feed = r.feedUpsert500 as Record<string, number>;
    const csv = r.csvImport100k as Record<string, number>;
    const site = r.websiteSync10k as { runs: Record<string, unknown>[] };
    const rowsLabel = CSV_ROWS.toLocaleString('en');
    rows.push({
      figure: `feed upsert 500 items, update median (${engine})`,
      value: feed.updateMedianMs!,
      unit: 'ms',
      ...below(feed.updateMedianMs!, 300),
      note: `first (creates) ${feed.firstCreateMs} ms, max ${feed.updateMaxMs} ms over ${FEED_ROUNDS - 1} updates`,
    });
    rows.push({
      figure: `CSV commit ${rowsLabel} rows (${engine})`,
      value: round1(csv.commitMs! / 1000, 2),
      unit: 's',
      ...below(csv.commitMs! / 1000, 30),
      note: `preview ${csv.previewMs} ms, created ${csv.created}, errors ${csv.errorCount}, same file again ${csv.sameFileAgainCommitMs} ms`,
    });
    rows.push({
      figure: `CSV import ${rowsLabel} rows, server peak RSS (${engine})`,
      value: csv.serverPeakRssBothImportsMB!,
      unit: 'MB',
      ...below(csv.serverPeakRssBothImportsMB!, 300),
      note: `before ${csv.serverRssBeforeMB} MB, preview peak ${csv.serverPeakRssPreviewMB} MB, commit peak ${csv.serverPeakRssCommitMB} MB${engine === 'embedded' ? ' (the embedded database lives in the service process)' : ''}`,
    });
    const first = site.runs[0]!;
    rows.push({
      figure: `website sync ${SITE_PRODUCTS.toLocaleString('en')} products, first run (${engine})`,
      value: round1(Number(first.wallMs) / 1000, 2),
      unit: 's',
      note: `status ${String(first.status)}, pages ${String(first.pages)}, created ${String(first.created)}; second run ${String(site.runs[1]?.wallMs)} ms`,
    });
  }
  return rows;
}
