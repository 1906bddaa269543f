import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JOB_QUEUE } from './job-queue.port';
import { JobQueueService } from './job-queue.service';
import { JobRegistry } from './job-registry';

@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [JobRegistry, JobQueueService, { provide: JOB_QUEUE, useExisting: JobQueueService }],
  exports: [JOB_QUEUE, JobQueueService],
})
export class QueueModule {}
