/**
 * Catalogue benchmark (DESIGN §13): feed upsert of 500 items, CSV preview + commit of 100,000 rows
 * with the service's peak resident memory, and a 10,000-product, 100-page website sync — on the
 * embedded engine and (with DATABASE_URL) on PostgreSQL.
 *
 *   npm run bench -- catalogue                  # embedded (+ PostgreSQL with DATABASE_URL)
 *   npm run bench -- --short catalogue          # 5,000 CSV rows, 3 feed rounds
 *
 * The service runs as a child process (`dist/src/main.js`, bench/lib/service.ts), so its memory is
 * its own: peak RSS is the kernel's VmHWM of that process, reset through /proc/<pid>/clear_refs just
 * before the preview and again before each commit (the commit's peak is the figure judged; its growth over
 * the idle baseline is in the note). On the embedded engine PGlite lives inside the service process, so the database's
 * memory counts too; on PostgreSQL it does not (the server is another process).
 *
 * Wall times depend on the machine's load; the costs next to them do not: the service's CPU time per
 * request (/proc/<pid>/stat), the SQL statements it sent (`sis_db_statements_total` on /metrics,
 * less what a scrape alone costs), and rows per statement. Every figure is checked against what was
 * stored: the feed's 500 items are read back with the last round's price, the CSV's rows are counted
 * by committing the same file again (0 created, every row updated) and spot-checked by SKU.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { type Json, type Service, call, commonEnv, startService, stop, withDataDir, withDatabase } from './lib/service';
import type { BenchContext, BenchRow } from './lib/types';
import { below, round } from './lib/types';

export const name = 'catalogue';

const FEED_ITEMS = 500;
const SITE_PAGE_SIZE = 100;

interface Sizes {
  readonly feedRounds: number;
  readonly csvRows: number;
  readonly siteProducts: number;
}

function ms(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function load1(): number {
  return round(loadavg()[0] ?? 0, 1);
}

/** VmRSS / VmHWM of a process, in MB. */
function procStatus(pid: number, key: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
}

/** CPU time (user + system, all threads) the process has used so far, in ms. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
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

/** The service's statement counter (sis_db_statements_total). */
async function statements(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const match = /^sis_db_statements_total (\d+)/m.exec(text);
  return match ? Number(match[1]) : NaN;
}

/** What one request cost the service: wall time, CPU time and statements (a scrape's own statements taken off). */
interface Cost {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly statements: number;
}

async function measured<T>(svc: Service, scrape: number, fn: () => Promise<T>): Promise<{ result: T; cost: Cost }> {
  const pid = svc.child.pid!;
  const before = await statements(svc.base);
  const cpu = cpuMs(pid);
  const start = process.hrtime.bigint();
  const result = await fn();
  const wallMs = ms(start);
  const cpuUsed = cpuMs(pid) - cpu;
  const after = await statements(svc.base);
  return { result, cost: { wallMs, cpuMs: cpuUsed, statements: after - before - scrape } };
}

function csvText(rows: number): string {
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

function feedItems(round: number): Json[] {
  return Array.from({ length: FEED_ITEMS }, (_, i) => ({
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
}

async function mockShop(products: number): Promise<{ server: Server; url: string; requests: () => number }> {
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
    res.end(JSON.stringify({ items: catalogue.slice((page - 1) * SITE_PAGE_SIZE, page * SITE_PAGE_SIZE) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/products?page={page}`,
    requests: () => requests,
  };
}

async function upload(base: string, headers: Record<string, string>, csv: string): Promise<Json> {
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
  const res = await fetch(`${base}/catalog/import/preview`, { method: 'POST', headers, body: form });
  const text = await res.text();
  if (!res.ok) throw new Error(`POST /catalog/import/preview → ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Json;
}

/** Every item of one source, read back page by page. */
async function listAll(base: string, headers: Record<string, string>, source: string): Promise<Json[]> {
  const items: Json[] = [];
  let cursor: string | null = null;
  do {
    const page = await call(
      base,
      'GET',
      `/catalog?source=${source}&status=ALL&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      headers,
    );
    items.push(...(page.data as Json[]));
    cursor = (page.nextCursor as string | null) ?? null;
  } while (cursor);
  return items;
}

async function waitRun(base: string, headers: Record<string, string>, websiteId: string, runId: string): Promise<Json> {
  for (;;) {
    const runs = await call(base, 'GET', `/catalog/websites/${websiteId}/runs?limit=10`, headers);
    const run = (runs.data as Json[]).find((r) => r.id === runId);
    if (run && run.status !== 'RUNNING') return run;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One engine's round: rows for the table. */
async function engineRound(
  ctx: BenchContext,
  engine: string,
  env: Record<string, string>,
  sizes: Sizes,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  // A generous start-up allowance: on a loaded machine the first start (initdb + migrations) can take minutes.
  const svc = await startService(env, 600_000);
  const pid = svc.child.pid!;
  const shop = await mockShop(sizes.siteProducts);
  try {
    const login = await call(svc.base, 'POST', '/auth/login', {}, { email: 'admin@example.com', password: env.BOOTSTRAP_ADMIN_PASSWORD });
    const workspaceId = String((login.workspaces as Json[])[0]!.id);
    const admin = { authorization: `Bearer ${String(login.accessToken)}`, 'x-workspace-id': workspaceId };
    const token = await call(svc.base, 'POST', '/developer/tokens', admin, { name: 'bench', scopes: ['catalog:write'] });
    const feed = { authorization: `Bearer ${String(token.token)}` };
    // What a /metrics scrape costs in statements by itself (it reads queue and event gauges).
    const s0 = await statements(svc.base);
    const s1 = await statements(svc.base);
    const scrape = s1 - s0;
    // Timers (sweeps, schedulers) send statements of their own: their idle rate, to read the counts below.
    const idleStart = process.hrtime.bigint();
    await new Promise((r) => setTimeout(r, 3_000));
    const background = round(((await statements(svc.base)) - s1 - scrape) / (ms(idleStart) / 1000), 1);

    // 1. Feed upsert, 500 items: the first request creates, the next ones update every item.
    ctx.log(`catalogue (${engine}): feed upsert, ${sizes.feedRounds} rounds`);
    const costs: Cost[] = [];
    const loadFeed = load1();
    for (let r = 0; r < sizes.feedRounds; r++) {
      const items = feedItems(r);
      const { cost } = await measured(svc, scrape, () =>
        call(svc.base, 'PUT', '/catalog/feed/items', feed, { items }),
      );
      costs.push(cost);
    }
    const stored = await listAll(svc.base, admin, 'FEED');
    const last = sizes.feedRounds - 1;
    const wrong = stored.filter((item) => {
      const i = Number(String(item.externalId).slice('feed-'.length));
      return item.price !== 1000 + i + last || item.description !== `Feed product ${i}, round ${last}`;
    }).length;
    const updates = costs.slice(1);
    const updateMedian = median(updates.map((c) => c.wallMs));
    rows.push({
      figure: `feed upsert 500 items, update median (${engine})`,
      value: Math.round(updateMedian),
      unit: 'ms',
      ...below(updateMedian, 300),
      note:
        `${updates.length} updates (every item changed), max ${Math.round(Math.max(...updates.map((c) => c.wallMs)))} ms; ` +
        `first (creates) ${Math.round(costs[0]!.wallMs)} ms; service CPU median ${median(updates.map((c) => c.cpuMs))} ms/upsert; ` +
        `${median(updates.map((c) => c.statements))} SQL statements/upsert (background timers: ${background}/s idle); load ${loadFeed}`,
    });
    rows.push({
      figure: `feed upsert: items stored as last sent (${engine})`,
      value: stored.length - wrong,
      unit: 'items',
      target: `= ${FEED_ITEMS}`,
      pass: stored.length === FEED_ITEMS && wrong === 0,
      correctness: true,
      note: `${stored.length} FEED items read back, ${wrong} not as last sent`,
    });

    // 2. CSV import: preview (the file is stored), commit, then the same file again (must only update).
    ctx.log(`catalogue (${engine}): CSV ${sizes.csvRows.toLocaleString('en')} rows`);
    const csv = csvText(sizes.csvRows);
    // The idle baseline: what the service holds before the import starts (the target is judged on the
    // commit's absolute peak, as DESIGN §15 states it; the growth over this baseline is what the import adds).
    const rssBefore = procStatus(pid, 'VmRSS');
    const peakReset = resetPeak(pid);
    const loadCsv = load1();
    let start = process.hrtime.bigint();
    const preview = await upload(svc.base, admin, csv);
    const previewMs = ms(start);
    const previewPeak = procStatus(pid, 'VmHWM');
    const rssBeforeCommit = procStatus(pid, 'VmRSS');
    resetPeak(pid);
    // Request → committed and searchable: the commit's answer, then the last row found by search.
    const lastSku = `SKU-${sizes.csvRows}`;
    const commit = await measured(svc, scrape, async () => {
      const answer = await call(svc.base, 'POST', `/catalog/import/${String(preview.importId)}/commit`, admin, {});
      const page = await call(svc.base, 'GET', `/catalog?search=${lastSku}&status=ALL&limit=100`, admin);
      return { answer, searchable: (page.data as Json[]).some((it) => it.sku === lastSku) };
    });
    const commitPeak = peakReset ? procStatus(pid, 'VmHWM') : NaN;
    const preview2 = await upload(svc.base, admin, csv);
    resetPeak(pid);
    const recommit = await measured(svc, scrape, () =>
      call(svc.base, 'POST', `/catalog/import/${String(preview2.importId)}/commit`, admin, {}),
    );
    const recommitPeak = peakReset ? procStatus(pid, 'VmHWM') : NaN;
    // Spot checks: a few rows by SKU, with the price the file gave them. Every probe is above a tenth of
    // the row count, so no other SKU contains it (the search matches substrings) and it is on page one.
    const probes = [Math.floor(sizes.csvRows / 3), Math.floor(sizes.csvRows / 2), sizes.csvRows - 1, sizes.csvRows];
    let found = 0;
    for (const i of probes) {
      const page = await call(svc.base, 'GET', `/catalog?search=SKU-${i}&status=ALL&limit=100`, admin);
      const item = (page.data as Json[]).find((it) => it.sku === `SKU-${i}`);
      const price = Number(`${1000 + (i % 5000)}.${String(i % 100).padStart(2, '0')}`);
      if (item && item.name === `Product ${i}, model ${i % 97}` && Number(item.price) === price) found++;
    }
    const c1 = commit.result.answer;
    const c2 = recommit.result;
    const label = sizes.csvRows.toLocaleString('en');
    rows.push({
      figure: `CSV commit ${label} rows (${engine})`,
      value: round(commit.cost.wallMs / 1000, 2),
      unit: 's',
      ...below(commit.cost.wallMs / 1000, 30),
      note:
        `request → committed and searchable (last row found by search: ${commit.result.searchable ? 'yes' : 'NO'}); ` +
        `preview ${Math.round(previewMs)} ms; same file again ${round(recommit.cost.wallMs / 1000, 2)} s ` +
        `(CPU ${round(recommit.cost.cpuMs / 1000, 1)} s); ` +
        `service CPU ${round(commit.cost.cpuMs / 1000, 1)} s; ${commit.cost.statements} statements ` +
        `(${Math.round(sizes.csvRows / Math.max(1, commit.cost.statements))} rows/statement); load ${loadCsv}`,
    });
    rows.push({
      figure: `CSV commit ${label} rows, service peak RSS (${engine})`,
      value: Math.round(commitPeak),
      unit: 'MB',
      ...below(commitPeak, 300),
      note:
        `judged on the commit's absolute peak (VmHWM reset after the preview); growth over the idle baseline ` +
        `${Math.round(commitPeak - rssBefore)} MB (idle before the upload ${Math.round(rssBefore)} MB, ` +
        `${Math.round(rssBeforeCommit)} MB when the commit started); preview peak ${Math.round(previewPeak)} MB, ` +
        `same file again peak ${Math.round(recommitPeak)} MB` +
        `${engine === 'embedded' ? ' (the embedded database lives in the service process)' : ''}`,
    });
    const allStored =
      c1.created === sizes.csvRows && c1.errorCount === 0 && c2.created === 0 && c2.updated === sizes.csvRows;
    rows.push({
      figure: `CSV rows stored (${engine})`,
      value: Number(c1.created),
      unit: 'rows',
      target: `= ${label}`,
      pass: allStored && found === probes.length && commit.result.searchable,
      correctness: true,
      note: `first commit created ${String(c1.created)} (errors ${String(c1.errorCount)}); same file again created ${String(c2.created)}, updated ${String(c2.updated)}; ${found}/${probes.length} spot checks by SKU right`,
    });

    // 3. Website sync: 10,000 products over 100 pages (+ the empty page that ends the list).
    ctx.log(`catalogue (${engine}): website sync ${sizes.siteProducts.toLocaleString('en')} products`);
    const website = await call(svc.base, 'POST', '/catalog/websites', admin, {
      name: 'Bench shop',
      url: shop.url,
      intervalMinutes: 1440,
    });
    const runs: { status: unknown; created: unknown; pages: unknown; wallMs: number }[] = [];
    for (let i = 0; i < 2; i++) {
      start = process.hrtime.bigint();
      const started = await call(svc.base, 'POST', `/catalog/websites/${String(website.id)}/sync`, admin, {});
      const run = await waitRun(svc.base, admin, String(website.id), String(started.runId));
      runs.push({ status: run.status, created: run.created, pages: run.pages, wallMs: ms(start) });
    }
    const first = runs[0]!;
    rows.push({
      figure: `website sync ${sizes.siteProducts.toLocaleString('en')} products, first run (${engine})`,
      value: round(first.wallMs / 1000, 2),
      unit: 's',
      note: `status ${String(first.status)}, pages ${String(first.pages)}, created ${String(first.created)}; second (unchanged) run ${Math.round(runs[1]!.wallMs)} ms; ${shop.requests()} page requests`,
    });
  } finally {
    shop.server.close();
    await stop(svc.child);
  }
  return rows;
}

/** Feed upsert, CSV import (time, peak RSS, rows stored) and website sync on each engine. */
export async function run(ctx: BenchContext): Promise<BenchRow[]> {
  const sizes: Sizes = ctx.short
    ? { feedRounds: 3, csvRows: 5_000, siteProducts: 500 }
    : { feedRounds: 10, csvRows: 100_000, siteProducts: 10_000 };
  const rows: BenchRow[] = [];
  const base = (dir: string): Record<string, string> => ({
    ...commonEnv(dir),
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  if (ctx.embedded) {
    ctx.log('catalogue: embedded');
    rows.push(...(await withDataDir((dir) => engineRound(ctx, 'embedded', base(dir), sizes))));
  }
  const databaseUrl = ctx.databaseUrl;
  if (databaseUrl) {
    ctx.log('catalogue: PostgreSQL');
    rows.push(
      ...(await withDatabase(databaseUrl, (url) =>
        withDataDir((dir) =>
          engineRound(
            ctx,
            ctx.redisUrl ? 'PG + Redis' : 'PG',
            { ...base(dir), DATABASE_URL: url, ...(ctx.redisUrl ? { REDIS_URL: ctx.redisUrl } : {}) },
            sizes,
          ),
        ),
      )),
    );
  }
  return rows;
}
