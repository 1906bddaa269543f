import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { preparedStatements } from 'src/core/database/prepared-statements';
import { runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { jobDuration } from 'src/core/metrics/metrics';
import { JOB_HANDLER, type JobHandlerOptions } from './job-handler.decorator';
import { JobName, type QueueName } from './job-names';
import type { JobPayload } from './job-queue.port';

export type JobFn = (data: JobPayload) => Promise<unknown>;

export interface RegisteredJob {
  readonly name: JobName;
  readonly queue: QueueName;
  readonly concurrency: number;
  readonly yieldsToAcks: boolean;
  readonly run: JobFn;
}

export class JobRegistryError extends Error {}

/** Finds every @JobHandler at boot and refuses to start unless each JobName has exactly one. */
@Injectable()
export class JobRegistry implements OnModuleInit {
  private readonly logger = new Logger('JobRegistry');
  private readonly jobs = new Map<JobName, RegisteredJob>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const found: { options: JobHandlerOptions; run: JobFn }[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!instance || typeof instance !== 'object') continue;
      const prototype: object | null = Object.getPrototypeOf(instance);
      if (!prototype) continue;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const fn: unknown = (instance as Record<string, unknown>)[method];
        if (typeof fn !== 'function') continue;
        const options = this.reflector.get<JobHandlerOptions | undefined>(JOB_HANDLER, fn);
        if (options) found.push({ options, run: (data) => Promise.resolve(fn.call(instance, data)) });
      }
    }
    this.register(found, Object.values(JobName));
  }

  /** Exposed for unit tests: validates a set of handlers against the declared job names. */
  register(found: { options: JobHandlerOptions; run: JobFn }[], declared: readonly JobName[]): void {
    const problems: string[] = [];
    for (const { options, run } of found) {
      if (this.jobs.has(options.name)) problems.push(`job "${options.name}" has more than one handler`);
      this.jobs.set(options.name, {
        name: options.name,
        queue: options.queue,
        concurrency: options.concurrency ?? 5,
        yieldsToAcks: options.yieldsToAcks ?? false,
        run: options.prepared ? (data) => preparedStatements.run(() => run(data)) : run,
      });
    }
    for (const name of declared) if (!this.jobs.has(name)) problems.push(`job "${name}" has no handler`);
    if (problems.length) throw new JobRegistryError(`Job handlers are miswired: ${problems.join('; ')}`);
    this.logger.debug(`Registered ${this.jobs.size} job handlers`);
  }

  get(name: JobName): RegisteredJob {
    const job = this.jobs.get(name);
    if (!job) throw new JobRegistryError(`No handler for job "${name}"`);
    return job;
  }

  all(): RegisteredJob[] {
    return [...this.jobs.values()];
  }

  /** Runs a job's handler inside its workspace's tenant context. */
  async execute(name: JobName, data: JobPayload): Promise<unknown> {
    const job = this.get(name);
    const end = jobDuration.startTimer({ job: name });
    try {
      const result = await runAsWorkspace(data.workspaceId, () => job.run(data));
      end({ result: 'completed' });
      return result;
    } catch (error) {
      end({ result: 'failed' });
      throw error;
    }
  }
}
