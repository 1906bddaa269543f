import { Injectable } from '@nestjs/common';
import { OutboundHttp, OutboundHttpError } from 'src/core/http/outbound-http';
import type { ConcreteWebsiteFormat, WebsiteFormat } from '../catalog-website.entity';
import {
  type SiteProduct,
  UnrecognisedPageError,
  detectFormat,
  hasProductList,
  parsePage,
} from './website-formats.util';

export const PAGE_PLACEHOLDER = '{page}';
const ENCODED_PLACEHOLDER = /%7Bpage%7D/gi;
const HAS_ENCODED_PLACEHOLDER = /%7Bpage%7D/i;

/** Tunables of the fetch (tests shorten the timeout). */
export interface FetchOptions {
  /** Per request, connection to last byte. */
  timeoutMs: number;
  /** DESIGN §14: a list still going at this page count is FAILED (a site that never ends). */
  maxPages: number;
  /** The whole run's fetching. */
  totalDeadlineMs: number;
  /** Per page body. */
  maxPageBytes: number;
}

export interface FetchRequest {
  readonly url: string;
  readonly format: WebsiteFormat;
  readonly headers: Record<string, string>;
}

export type FetchResult =
  | {
      readonly ok: true;
      readonly products: SiteProduct[];
      readonly pages: number;
      readonly format: ConcreteWebsiteFormat;
      readonly skipped: number;
      readonly notes: string[];
    }
  | { readonly ok: false; readonly pages: number; readonly message: string };

class FetchFailure extends Error {}

export function hasPagePlaceholder(url: string): boolean {
  return url.includes(PAGE_PLACEHOLDER) || HAS_ENCODED_PLACEHOLDER.test(url);
}

export function pageUrl(url: string, page: number): string {
  return url.replaceAll(PAGE_PLACEHOLDER, String(page)).replace(ENCODED_PLACEHOLDER, String(page));
}

/**
 * Reads a website's product list, read-only (GET only), page by page. Paging (DESIGN §14): with a
 * `{page}` placeholder, pages 1, 2, … until an empty page, a page equal to the previous one (a site
 * that ignores the page number), WooCommerce's `X-WP-TotalPages`, or 1,000 pages (→ failed). Any
 * network error, non-2xx answer, timeout or body that is not JSON fails the whole fetch: a sync then
 * changes nothing.
 */
@Injectable()
export class WebsiteFetcher {
  readonly options: FetchOptions = {
    timeoutMs: 15_000,
    maxPages: 1_000,
    totalDeadlineMs: 10 * 60_000,
    maxPageBytes: 20 * 1024 * 1024,
  };

  constructor(private readonly http: OutboundHttp) {}

  async fetchAll(request: FetchRequest): Promise<FetchResult> {
    const paged = hasPagePlaceholder(request.url);
    const deadline = Date.now() + this.options.totalDeadlineMs;
    const products: SiteProduct[] = [];
    const notes: string[] = [];
    let format: ConcreteWebsiteFormat | null = request.format === 'AUTO' ? null : request.format;
    let skipped = 0;
    let previousSignature: string | null = null;
    let page = 0;
    let pagesRead = 0;
    try {
      for (;;) {
        page++;
        if (Date.now() > deadline)
          throw new FetchFailure(
            `fetching took longer than ${Math.round(this.options.totalDeadlineMs / 60_000)} minutes`,
          );
        const url = paged ? pageUrl(request.url, page) : request.url;
        const { body, totalPages } = await this.get(url, request.headers, page);
        format ??= detectFormat(body);
        if (format === null && !hasProductList(body)) {
          throw new FetchFailure(
            `page ${page}: no product list found (expected an array, or one under items, products or data)`,
          );
        }
        const parsed = format === null ? { products: [], skipped: 0 } : this.parse(body, format, page);
        if (parsed.products.length === 0 && parsed.skipped === 0) break;
        const signature = parsed.products.map((p) => p.productId).join('\u0000');
        if (previousSignature !== null && signature === previousSignature) {
          notes.push(`page ${page} repeated page ${page - 1}: paging stopped there`);
          break;
        }
        previousSignature = signature;
        pagesRead++;
        products.push(...parsed.products);
        skipped += parsed.skipped;
        if (!paged) {
          if (totalPages !== null && totalPages > 1)
            notes.push(`the site reports ${totalPages} pages: add ?page={page} to the link to read them all`);
          break;
        }
        if (totalPages !== null && page >= totalPages) break;
        if (page >= this.options.maxPages) {
          throw new FetchFailure(
            `the product list did not end after ${this.options.maxPages.toLocaleString('en-US')} pages (a site that never ends, or a {page} placeholder it ignores)`,
          );
        }
      }
    } catch (error) {
      if (error instanceof FetchFailure)
        return { ok: false, pages: page, message: `Fetching failed, nothing was changed: ${error.message}.` };
      throw error;
    }
    return { ok: true, products, pages: pagesRead, format: format ?? 'GENERIC', skipped, notes };
  }

  private parse(
    body: unknown,
    format: ConcreteWebsiteFormat,
    page: number,
  ): { products: SiteProduct[]; skipped: number } {
    try {
      return parsePage(body, format);
    } catch (error) {
      if (error instanceof UnrecognisedPageError) throw new FetchFailure(`page ${page}: ${error.message}`);
      throw error;
    }
  }

  /**
   * One page through the one outbound client (issue 9): every resolved address of every hop is
   * checked and connected to as checked, at most 5 redirects, the key headers dropped when a redirect
   * leaves the site's origin, size and time limits.
   */
  private async get(
    url: string,
    headers: Record<string, string>,
    page: number,
  ): Promise<{ body: unknown; totalPages: number | null }> {
    let response;
    try {
      response = await this.http.request({
        method: 'GET',
        url,
        headers: { accept: 'application/json', 'user-agent': 'SupportInboxService-CatalogSync/1', ...headers },
        timeoutMs: this.options.timeoutMs,
        maxBytes: this.options.maxPageBytes,
        maxRedirects: 5,
      });
    } catch (error) {
      if (error instanceof OutboundHttpError) throw new FetchFailure(`page ${page}: ${describeOutboundError(error)}`);
      throw error;
    }
    if (response.status < 200 || response.status > 299)
      throw new FetchFailure(`page ${page}: the website answered HTTP ${response.status}`);
    let body: unknown;
    try {
      body = JSON.parse(response.text());
    } catch {
      throw new FetchFailure(`page ${page} is not valid JSON`);
    }
    const header = response.headers['x-wp-totalpages'];
    const totalPages = typeof header === 'string' && /^\d+$/.test(header.trim()) ? Number(header.trim()) : null;
    return { body, totalPages };
  }
}

function describeOutboundError(error: OutboundHttpError): string {
  if (error.kind === 'timeout') return `${error.message} (timeout)`;
  if (error.kind === 'too_large') return 'the page is larger than the limit';
  if (error.kind === 'refused' || error.kind === 'bad_url') return `url ${error.message}`;
  return error.message;
}
