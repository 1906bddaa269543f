import { Injectable, Logger } from '@nestjs/common';
import { SecretBox } from 'src/core/crypto/secret-box.service';
import { TransactionHost } from 'src/core/database/transaction-host';
import { EventBus } from 'src/core/events/event-bus';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import type { CatalogWebsiteEntity } from './catalog-website.entity';
import { CatalogItemsRepository } from './catalog-items.repository';
import { CatalogWebsiteRunsRepository, type RunOutcome } from './catalog-website-runs.repository';
import { CatalogWebsitesRepository } from './catalog-websites.repository';
import { toWebsiteRunResponse } from './dto/website.dto';
import { dedupeProducts, planSync } from './website/sync-plan.util';
import { WebsiteFetcher } from './website/website-fetcher.service';

/** What a run did, for the events published after its transaction commits. */
type Finished =
  | { readonly kind: 'completed'; readonly outcome: RunOutcome }
  | {
      readonly kind: 'stopped';
      readonly outcome: RunOutcome;
      readonly wouldTakeOffSale: number;
      readonly onSale: number;
    }
  | { readonly kind: 'failed'; readonly outcome: RunOutcome };

const ZERO = { created: 0, updated: 0, offSale: 0, restored: 0, unchanged: 0 } as const;

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * Executes one sync run (the `catalog.website-sync` job). Fetch first, outside any transaction; then
 * one transaction locks the connection and its items, plans, and either writes everything
 * (set-based) or nothing: a failed fetch, a disconnected website and the off-sale guard all leave
 * the catalogue as it was. The run record and the connection's last-sync fields say what happened.
 */
@Injectable()
export class WebsiteSyncService {
  private readonly logger = new Logger('WebsiteSync');

  constructor(
    private readonly websites: CatalogWebsitesRepository,
    private readonly runs: CatalogWebsiteRunsRepository,
    private readonly items: CatalogItemsRepository,
    private readonly fetcher: WebsiteFetcher,
    private readonly secrets: SecretBox,
    private readonly events: EventBus,
    private readonly tx: TransactionHost,
  ) {}

  async execute(runId: string): Promise<'success' | 'skipped'> {
    const run = await this.runs.pick(runId);
    if (!run) return 'skipped';
    let finished: Finished;
    try {
      finished = await this.perform(run.id, run.websiteId, run.confirmOffSale);
    } catch (error) {
      this.logger.error({ err: error, runId }, 'Website sync failed unexpectedly');
      finished = {
        kind: 'failed',
        outcome: {
          status: 'FAILED',
          pages: 0,
          fetched: 0,
          ...ZERO,
          message: 'The sync failed because of an internal error; nothing was changed.',
        },
      };
    }
    if (finished.kind === 'failed') await this.tx.run(() => this.record(run.id, run.websiteId, finished.outcome));
    return 'success';
  }

  private async perform(runId: string, websiteId: string, confirmOffSale: boolean): Promise<Finished> {
    const website = await this.websites.findById(websiteId);
    if (!website || website.status !== 'ACTIVE')
      return this.failed('The website was disconnected; nothing was changed.');
    const fetched = await this.fetcher.fetchAll({
      url: website.url,
      format: website.format,
      headers: this.keyHeader(website),
    });
    if (!fetched.ok) return this.failed(fetched.message, fetched.pages);
    const products = dedupeProducts(fetched.products);

    return this.tx.run(async (): Promise<Finished> => {
      if (!(await this.websites.lockActive(websiteId)))
        return this.failed('The website was disconnected; nothing was changed.', fetched.pages);
      const existing = await this.items.lockWebsiteItems(websiteId);
      const plan = planSync(existing, products, { confirmOffSale, now: new Date() });
      const base = { pages: fetched.pages, fetched: products.length };
      if (plan.stopped) {
        const outcome: RunOutcome = { status: 'GUARD_STOPPED', ...base, ...ZERO, message: plan.message };
        await this.record(runId, websiteId, outcome, fetched.format);
        const stopped: Finished = {
          kind: 'stopped',
          outcome,
          wouldTakeOffSale: plan.wouldTakeOffSale,
          onSale: plan.onSale,
        };
        await this.publish(runId, websiteId, stopped);
        return stopped;
      }
      await this.items.upsertWebsiteItems(websiteId, plan.rows);
      await this.items.takeWebsiteItemsOffSale(websiteId, plan.offSaleIds);
      const c = plan.counts;
      const notes = [...fetched.notes];
      if (fetched.skipped > 0) notes.push(`${plural(fetched.skipped, 'entry')} without an id skipped`);
      const message =
        `Read ${plural(products.length, 'product')} from ${plural(fetched.pages, 'page')} (${fetched.format}): ${c.created} created, ${c.updated} updated, ` +
        `${c.offSale} taken off sale, ${c.restored} back on sale, ${c.unchanged} unchanged.` +
        (notes.length > 0 ? ` Note: ${notes.join('; ')}.` : '');
      const outcome: RunOutcome = { status: 'SUCCESS', ...base, ...c, message };
      await this.record(runId, websiteId, outcome, fetched.format);
      const completed: Finished = { kind: 'completed', outcome };
      await this.publish(runId, websiteId, completed);
      return completed;
    });
  }

  private failed(message: string, pages = 0): Finished {
    return { kind: 'failed', outcome: { status: 'FAILED', pages, fetched: 0, ...ZERO, message } };
  }

  private async record(
    runId: string,
    websiteId: string,
    outcome: RunOutcome,
    detectedFormat?: CatalogWebsiteEntity['detectedFormat'],
  ): Promise<void> {
    await this.runs.finish(runId, outcome);
    await this.websites.updateById(websiteId, {
      lastSyncAt: new Date(),
      lastSyncStatus: outcome.status,
      lastSyncMessage: outcome.message,
      ...(detectedFormat ? { detectedFormat } : {}),
    });
  }

  /** `catalog.sync.completed` / `.stopped` with the run record (its REST shape), in the run's transaction. */
  private async publish(runId: string, websiteId: string, finished: Finished): Promise<void> {
    const workspaceId = getTenantContext().workspaceId;
    if (finished.kind === 'failed') return;
    const run = toWebsiteRunResponse(await this.runs.getById(runId));
    if (finished.kind === 'completed') {
      await this.events.publish('catalog.sync.completed', workspaceId, { websiteId, run });
    } else {
      await this.events.publish('catalog.sync.stopped', workspaceId, {
        websiteId,
        run,
        wouldTakeOffSale: finished.wouldTakeOffSale,
        onSale: finished.onSale,
      });
    }
  }

  private keyHeader(website: CatalogWebsiteEntity): Record<string, string> {
    if (!website.keyHeaderName || !website.keyHeaderValue) return {};
    return { [website.keyHeaderName]: this.secrets.decrypt(website.keyHeaderValue) };
  }
}
