import { Inject, Injectable } from '@nestjs/common';
import { SecretBox } from 'src/core/crypto/secret-box.service';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { OutboundHttp } from 'src/core/http/outbound-http';
import { type CursorPaginationQuery, type Page, mapPage } from 'src/core/http/pagination';
import { JobName } from 'src/core/queue/job-names';
import { JOB_QUEUE, type JobQueue } from 'src/core/queue/job-queue.port';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { CatalogWebsiteRunEntity, WebsiteRunTrigger } from './catalog-website-run.entity';
import type { CatalogWebsiteEntity } from './catalog-website.entity';
import { CatalogWebsiteRunsRepository } from './catalog-website-runs.repository';
import { CatalogWebsitesRepository } from './catalog-websites.repository';
import {
  type CreateWebsiteDto,
  type ListWebsitesQuery,
  type SyncStartedResponse,
  type SyncWebsiteDto,
  type UpdateWebsiteDto,
  type WebsiteResponse,
  type WebsiteRunResponse,
  toWebsiteResponse,
  toWebsiteRunResponse,
} from './dto/website.dto';
import type { CatalogWebsiteSyncJobData } from './jobs/catalog-website-sync.job';
import { pageUrl } from './website/website-fetcher.service';

/** Headers a key header may not replace (they belong to the HTTP exchange itself). */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'accept',
  'user-agent',
  'upgrade',
  'te',
]);

function minutesFromNow(minutes: number): Date {
  return new Date(Date.now() + minutes * 60_000);
}

export function syncJobId(runId: string): string {
  return `catalog-sync-${runId}`;
}

/**
 * Website sync connections (SPEC §2): CRUD, "sync now" and the run history. The key header value is
 * sealed with SecretBox and never returned. Disconnecting keeps the connection row (status
 * DISCONNECTED, key erased, no more timers) and every product it brought: they keep their
 * `websiteId` and simply stop updating.
 */
@Injectable()
export class CatalogWebsitesService {
  constructor(
    private readonly websites: CatalogWebsitesRepository,
    private readonly runs: CatalogWebsiteRunsRepository,
    private readonly secrets: SecretBox,
    private readonly outbound: OutboundHttp,
    private readonly tx: TransactionHost,
    @Inject(JOB_QUEUE) private readonly jobs: JobQueue,
  ) {}

  async list(_ctx: TenantContext, query: ListWebsitesQuery): Promise<Page<WebsiteResponse>> {
    return mapPage(await this.websites.findPage(query, query.status), toWebsiteResponse);
  }

  async get(_ctx: TenantContext, id: string): Promise<WebsiteResponse> {
    return toWebsiteResponse(await this.websites.getById(id));
  }

  /** The first sync runs one interval after connecting, or at once with `POST /catalog/websites/:id/sync`. */
  async create(_ctx: TenantContext, dto: CreateWebsiteDto): Promise<WebsiteResponse> {
    await this.assertUrl(dto.url);
    const key = this.sealKey(dto.keyHeaderName ?? null, dto.keyHeaderValue, null);
    const values = {
      name: dto.name,
      url: dto.url,
      format: dto.format ?? 'AUTO',
      keyHeaderName: key.name,
      keyHeaderValue: key.value,
      intervalMinutes: dto.intervalMinutes,
      status: 'ACTIVE' as const,
      nextSyncAt: minutesFromNow(dto.intervalMinutes),
      disconnectedAt: null,
    };
    return this.tx.run(async () => {
      const previous = await this.websites.findDisconnectedByUrl(dto.url);
      const row = previous ? await this.websites.updateById(previous.id, values) : await this.websites.insert(values);
      return toWebsiteResponse(row);
    });
  }

  async update(_ctx: TenantContext, id: string, dto: UpdateWebsiteDto): Promise<WebsiteResponse> {
    const current = await this.activeWebsite(id);
    if (dto.url !== undefined) await this.assertUrl(dto.url);
    const patch: Partial<CatalogWebsiteEntity> = {};
    if (dto.name !== undefined) patch.name = dto.name;
    if (dto.url !== undefined) patch.url = dto.url;
    if (dto.format !== undefined) patch.format = dto.format;
    if (dto.intervalMinutes !== undefined) {
      patch.intervalMinutes = dto.intervalMinutes;
      patch.nextSyncAt = minutesFromNow(dto.intervalMinutes);
    }
    if (dto.keyHeaderName !== undefined || dto.keyHeaderValue !== undefined) {
      const name = dto.keyHeaderName === undefined ? current.keyHeaderName : dto.keyHeaderName;
      const key = this.sealKey(name, dto.keyHeaderValue, current.keyHeaderValue);
      patch.keyHeaderName = key.name;
      patch.keyHeaderValue = key.value;
    }
    return toWebsiteResponse(await this.websites.updateById(id, patch));
  }

  /** DELETE: disconnects (204). Its products stay, with their websiteId, and stop updating. Idempotent. */
  async disconnect(_ctx: TenantContext, id: string): Promise<void> {
    const website = await this.websites.getById(id);
    if (website.status === 'DISCONNECTED') return;
    await this.websites.updateById(id, {
      status: 'DISCONNECTED',
      keyHeaderName: null,
      keyHeaderValue: null,
      nextSyncAt: null,
      disconnectedAt: new Date(),
    });
  }

  /** "Sync now": 202 with the run's id; the run itself is a job. One run at a time per website (409 otherwise). */
  async syncNow(_ctx: TenantContext, id: string, dto: SyncWebsiteDto): Promise<SyncStartedResponse> {
    await this.activeWebsite(id);
    const run = await this.startRun(id, 'MANUAL', dto.confirmOffSale ?? false);
    if (!run) throw AppException.conflict('A sync of this website is already running');
    return { runId: run.id };
  }

  async listRuns(_ctx: TenantContext, id: string, query: CursorPaginationQuery): Promise<Page<WebsiteRunResponse>> {
    await this.websites.getById(id);
    return mapPage(await this.runs.findPage(id, query), toWebsiteRunResponse);
  }

  /** Records a run and enqueues its job once the record is committed. Null when a run is already in flight. */
  async startRun(
    websiteId: string,
    trigger: WebsiteRunTrigger,
    confirmOffSale: boolean,
  ): Promise<CatalogWebsiteRunEntity | null> {
    return this.tx.run(async () => {
      const run = await this.runs.start(websiteId, trigger, confirmOffSale);
      if (!run) return null;
      const data: CatalogWebsiteSyncJobData = { workspaceId: run.workspaceId, runId: run.id };
      await this.tx.afterCommit(() =>
        this.jobs.enqueue(JobName.CatalogWebsiteSync, data, { jobId: syncJobId(run.id) }),
      );
      return run;
    });
  }

  private async activeWebsite(id: string): Promise<CatalogWebsiteEntity> {
    const website = await this.websites.getById(id);
    if (website.status !== 'ACTIVE')
      throw AppException.invalidTransition(
        'This website is disconnected: connect it again with POST /catalog/websites',
      );
    return website;
  }

  private async assertUrl(url: string): Promise<void> {
    await this.outbound.assertAllowedField(pageUrl(url, 1), 'url');
  }

  /** Both or neither: a name needs a value (new, or the one already stored); a value needs a name. */
  private sealKey(
    name: string | null,
    value: string | undefined,
    stored: string | null,
  ): { name: string | null; value: string | null } {
    if (name === null) {
      if (value !== undefined) throw AppException.field('keyHeaderName', 'is required with keyHeaderValue');
      return { name: null, value: null };
    }
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw AppException.field('keyHeaderName', `cannot be ${name}`);
    if (value !== undefined) return { name, value: this.secrets.encrypt(value) };
    if (stored === null) throw AppException.field('keyHeaderValue', 'is required with keyHeaderName');
    return { name, value: stored };
  }
}
