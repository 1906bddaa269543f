import { Controller, Get, Headers, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { ApiOkResponse, ApiOperation, ApiSecurity, ApiTags, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { timingSafeEqual } from 'node:crypto';
import { Public } from 'src/core/auth/decorators/auth.decorators';
import { APP_CONFIG } from 'src/core/config/config.constants';
import type { AppConfig } from 'src/core/config/app-config';
import { AppException } from 'src/core/errors/app.exception';
import { JobQueueService } from 'src/core/queue/job-queue.service';
import { inboundEvents, metricsRegistry, outboundMessages, queueDepth } from './metrics';
import { MetricsRepository } from './metrics.repository';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

@ApiTags('health')
@Controller('metrics')
export class MetricsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: MetricsRepository,
    private readonly jobs: JobQueueService,
  ) {}

  @Get()
  @Public()
  @ApiOperation({ summary: 'Prometheus metrics (Authorization: Bearer METRICS_TOKEN when that is set)' })
  @ApiSecurity('bearer')
  @ApiOkResponse({
    description: 'Prometheus text exposition format',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  @ApiUnauthorizedResponse({ description: 'METRICS_TOKEN is set and the bearer token does not match' })
  async metrics(
    @Res({ passthrough: true }) res: Response,
    @Headers('authorization') authorization?: string,
  ): Promise<string> {
    const token = this.config.metricsToken;
    if (token && !sameSecret(authorization ?? '', `Bearer ${token}`))
      throw AppException.unauthenticated('GET /metrics needs Authorization: Bearer <METRICS_TOKEN>');
    await this.collect();
    // Set here, not with @Header: an error (401) stays JSON.
    res.type(metricsRegistry.contentType);
    return metricsRegistry.metrics();
  }

  /** Database and queue state, read at scrape time so every process reports the same totals. */
  private async collect(): Promise<void> {
    const [inbound, outbound, depths] = await Promise.all([
      this.repository.inboundEventsByStatus(),
      this.repository.outboundMessagesByStatus(),
      this.jobs.depths().catch(() => []),
    ]);
    inboundEvents.reset();
    for (const row of inbound) inboundEvents.set({ status: row.status }, row.count);
    outboundMessages.reset();
    for (const row of outbound) outboundMessages.set({ status: row.status }, row.count);
    queueDepth.reset();
    for (const row of depths) queueDepth.set({ queue: row.queue, state: row.state }, row.count);
  }
}
