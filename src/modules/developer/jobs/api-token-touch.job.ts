import { Injectable } from '@nestjs/common';
import { JobHandler } from 'src/core/queue/job-handler.decorator';
import { JobName, QueueName } from 'src/core/queue/job-names';
import type { JobPayload } from 'src/core/queue/job-queue.port';
import { ApiTokensRepository } from '../api-tokens.repository';

export interface ApiTokenTouchJobData extends JobPayload {
  readonly tokenId: string;
  readonly usedAt: string;
}

/** Records a token's `lastUsedAt` without a write on the request path. */
@Injectable()
export class ApiTokenTouchJob {
  constructor(private readonly tokens: ApiTokensRepository) {}

  @JobHandler({ name: JobName.ApiTokenTouch, queue: QueueName.Maintenance })
  async handle(data: ApiTokenTouchJobData): Promise<'success'> {
    await this.tokens.markUsed(data.tokenId, new Date(data.usedAt));
    return 'success';
  }
}
