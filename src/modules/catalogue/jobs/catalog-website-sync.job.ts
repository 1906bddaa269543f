import { Injectable } from '@nestjs/common';
import { JobHandler } from 'src/core/queue/job-handler.decorator';
import { JobName, QueueName } from 'src/core/queue/job-names';
import type { JobPayload } from 'src/core/queue/job-queue.port';
import { WebsiteSyncService } from '../website-sync.service';

export interface CatalogWebsiteSyncJobData extends JobPayload {
  readonly runId: string;
}

/** Runs one website sync (manual or scheduled). Idempotent: a redelivered job finds its run taken and skips. */
@Injectable()
export class CatalogWebsiteSyncJob {
  constructor(private readonly sync: WebsiteSyncService) {}

  @JobHandler({ name: JobName.CatalogWebsiteSync, queue: QueueName.Catalog, concurrency: 2 })
  handle(data: CatalogWebsiteSyncJobData): Promise<'success' | 'skipped'> {
    return this.sync.execute(data.runId);
  }
}
