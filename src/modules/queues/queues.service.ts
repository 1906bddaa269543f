import { Injectable } from '@nestjs/common';
import type { QueueEntity } from './queue.entity';
import { QueuesRepository } from './queues.repository';

/** Queues and their members. The workspace's default queue is created with the workspace. */
@Injectable()
export class QueuesService {
  constructor(private readonly queues: QueuesRepository) {}

  /** Creates the default queue of the current workspace (called once, when the workspace is created). */
  createDefault(): Promise<QueueEntity> {
    return this.queues.insert({ name: 'General', isDefault: true, strategy: 'ROUND_ROBIN' });
  }

  /** New members join the default queue (DESIGN §3.1). */
  async addToDefaultQueue(userId: string): Promise<void> {
    const queue = await this.queues.findDefault();
    if (queue) await this.queues.addMembers(queue.id, [userId]);
  }
}
