import { expect } from '@jest/globals';
import { type TestApp, eventually } from '../../utils/test-app';

export interface Run {
  id: string;
  websiteId: string;
  trigger: string;
  status: string;
  pages: number;
  fetched: number;
  created: number;
  updated: number;
  offSale: number;
  restored: number;
  unchanged: number;
  message: string | null;
}

export interface CatalogItem {
  id: string;
  name: string | null;
  price: number | string | null;
  priceDisplay: string | null;
  currency: string | null;
  stock: number | null;
  images: string[];
  keywords: string[];
  status: string;
  source: string;
  websiteId: string | null;
  websiteProductId: string | null;
  notice: string | null;
  sku: string | null;
  category: string | null;
  description: string | null;
}

/** Waits for a run to finish, with the inline driver (drain) and with BullMQ workers (polling). */
export async function waitForRun(
  t: TestApp,
  headers: Record<string, string>,
  websiteId: string,
  runId: string,
): Promise<Run> {
  await t.drain();
  return eventually(async () => {
    const res = await t.http.get(`/catalog/websites/${websiteId}/runs?limit=100`).set(headers).expect(200);
    const run = (res.body.data as Run[]).find((r) => r.id === runId);
    if (!run || run.status === 'RUNNING') throw new Error(`run ${runId} still running`);
    return run;
  }, 30_000);
}

/** Starts a manual sync and waits for its run. */
export async function syncNow(
  t: TestApp,
  headers: Record<string, string>,
  websiteId: string,
  confirmOffSale?: boolean,
): Promise<Run> {
  const res = await t.http
    .post(`/catalog/websites/${websiteId}/sync`)
    .set(headers)
    .send(confirmOffSale === undefined ? {} : { confirmOffSale });
  expect(res.status).toBe(202);
  return waitForRun(t, headers, websiteId, res.body.runId as string);
}

/** Every item of the workspace (all statuses), by website product id. */
export async function websiteItems(
  t: TestApp,
  headers: Record<string, string>,
  websiteId: string,
): Promise<Map<string, CatalogItem>> {
  const out = new Map<string, CatalogItem>();
  let cursor: string | null = null;
  do {
    const res = await t.http
      .get(`/catalog?limit=100&status=ALL&websiteId=${websiteId}${cursor ? `&cursor=${cursor}` : ''}`)
      .set(headers)
      .expect(200);
    for (const item of res.body.data as CatalogItem[]) out.set(item.websiteProductId ?? item.id, item);
    cursor = res.body.nextCursor as string | null;
  } while (cursor);
  return out;
}
