import { Controller, Get, Inject } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthCheckResult } from '@nestjs/terminus';
import { DataSource } from 'typeorm';
import { Public } from 'src/core/auth/decorators/auth.decorators';
import { DatabaseRuntime } from 'src/core/database/database-runtime';
import { JobQueueService } from 'src/core/queue/job-queue.service';

@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly dataSource: DataSource,
    @Inject(DatabaseRuntime) private readonly runtime: DatabaseRuntime,
    private readonly jobs: JobQueueService,
  ) {}

  @Get()
  @Public()
  @HealthCheck()
  @ApiOperation({ summary: 'Database and job backend status (`redis` or `inline`)' })
  check(): Promise<HealthCheckResult> {
    return this.ready();
  }

  @Get('live')
  @Public()
  @ApiOperation({ summary: 'Liveness: the process answers (no dependency is checked)' })
  @ApiOkResponse({
    schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } } },
  })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @Public()
  @HealthCheck()
  @ApiOperation({ summary: 'Readiness: the database answers and the job backend is known (503 otherwise)' })
  readiness(): Promise<HealthCheckResult> {
    return this.ready();
  }

  private ready(): Promise<HealthCheckResult> {
    return this.health.check([
      () =>
        this.indicators
          .check('database')
          .attempt(async () => {
            await this.dataSource.query('SELECT 1');
            return { engine: this.runtime.engine };
          })
          .withTimeout(3_000),
      () => {
        const backend = this.jobs.backend();
        const queue = this.indicators.check('queue');
        // Redis configured but not answering: still serving (jobs run in-process), so degraded, not down.
        return this.jobs.redisConfigured && backend === 'inline' ? queue.degraded({ backend }) : queue.up({ backend });
      },
    ]);
  }
}
