import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { CacheInvalidation, TopicCache } from 'src/core/events/cache-invalidation';
import { getTenantContext } from 'src/core/tenancy/tenant-context';
import { AppException } from 'src/core/errors/app.exception';
import type { CursorPaginationQuery, Page } from 'src/core/http/pagination';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { type CreateQueueDto, type QueueResponse, type UpdateQueueDto, toQueueResponse } from './dto/queue.dto';
import type { QueueEntity } from './queue.entity';
import { QueuesRepository } from './queues.repository';
import { ConversationAssignmentsPort } from './conversation-assignments.port';
import { RoutingService } from './routing.service';

/** Queues and their members. The workspace's default queue is created with the workspace. */
@Injectable()
export class QueuesService {
  /** The default queue's id per workspace (the inbound pipeline asks for it per new conversation). */
  private readonly defaultIds: TopicCache<string | null>;

  constructor(
    private readonly tx: TransactionHost,
    private readonly queues: QueuesRepository,
    private readonly conversations: ConversationAssignmentsPort,
    private readonly routing: RoutingService,
    invalidation: CacheInvalidation,
  ) {
    this.defaultIds = new TopicCache(invalidation, 'default-queue');
  }

  /** Creates the default queue of the current workspace (called once, when the workspace is created). */
  createDefault(): Promise<QueueEntity> {
    return this.queues.insert({ name: 'General', isDefault: true, strategy: 'ROUND_ROBIN' });
  }

  /** New members join the default queue (DESIGN §3.1). */
  async addToDefaultQueue(userId: string): Promise<void> {
    const queue = await this.queues.findDefault();
    if (queue) await this.queues.addMembers(queue.id, [userId]);
  }

  /**
   * The current workspace's default queue id, from memory while cross-process invalidation is up
   * (which queue is the default changes only through `clearDefault`, which announces it).
   */
  async getDefaultId(): Promise<string> {
    const id = await this.defaultIds.get(
      getTenantContext().workspaceId,
      async () => (await this.queues.findDefault())?.id ?? null,
    );
    if (!id) throw AppException.notFound('Default queue');
    return id;
  }

  /** The current workspace's default queue (every workspace has one). */
  async getDefault(): Promise<QueueEntity> {
    const queue = await this.queues.findDefault();
    if (!queue) throw AppException.notFound('Default queue');
    return queue;
  }

  /** The queues a member belongs to (what an agent without `conversations.view_all` may see). */
  memberQueueIds(userId: string): Promise<string[]> {
    return this.queues.queueIdsOf(userId);
  }

  async list(_ctx: TenantContext, query: CursorPaginationQuery): Promise<Page<QueueResponse>> {
    const page = await this.queues.findPage(query);
    const members = await this.queues.memberIds(page.data.map((q) => q.id));
    return { data: page.data.map((q) => toQueueResponse(q, members.get(q.id) ?? [])), nextCursor: page.nextCursor };
  }

  async create(_ctx: TenantContext, dto: CreateQueueDto): Promise<QueueResponse> {
    const memberIds = dto.memberIds ?? [];
    const queue = await this.tx.run(async () => {
      await this.assertMembers(memberIds);
      const created = await this.queues.insert({
        name: dto.name,
        isDefault: false,
        strategy: dto.strategy ?? 'ROUND_ROBIN',
      });
      await this.queues.addMembers(created.id, memberIds);
      return created;
    });
    return this.response(queue);
  }

  async update(_ctx: TenantContext, id: string, dto: UpdateQueueDto): Promise<QueueResponse> {
    const queue = await this.tx.run(async () => {
      const current = await this.queues.getById(id);
      if (dto.memberIds) {
        await this.assertMembers(dto.memberIds);
        await this.queues.replaceMembers(current.id, dto.memberIds);
      }
      if (dto.isDefault && !current.isDefault) await this.queues.clearDefault();
      return this.queues.updateById(current.id, {
        ...(dto.name !== undefined ? { name: dto.name } : {}),
        ...(dto.strategy !== undefined ? { strategy: dto.strategy } : {}),
        ...(dto.isDefault ? { isDefault: true } : {}),
      });
    });
    // New members or a new strategy may let waiting conversations be assigned now.
    await this.routing.assignWaiting([queue.id]);
    return this.response(queue);
  }

  /** The default queue cannot be deleted (409). Conversations of a deleted queue move to the default queue. */
  async remove(_ctx: TenantContext, id: string): Promise<void> {
    const defaultQueueId = await this.tx.run(async () => {
      const queue = await this.queues.getById(id);
      if (queue.isDefault) throw AppException.conflict('The default queue cannot be deleted');
      const fallback = await this.getDefault();
      await this.conversations.moveQueue(queue.id, fallback.id);
      await this.queues.deleteById(queue.id);
      return fallback.id;
    });
    await this.routing.assignWaiting([defaultQueueId]);
  }

  private async response(queue: QueueEntity): Promise<QueueResponse> {
    const members = await this.queues.memberIds([queue.id]);
    return toQueueResponse(queue, members.get(queue.id) ?? []);
  }

  private async assertMembers(userIds: readonly string[]): Promise<void> {
    const existing = await this.queues.existingMembers(userIds);
    const index = userIds.findIndex((id) => !existing.has(id));
    if (index >= 0) throw AppException.field(`memberIds.${index}`, 'is not a member of this workspace');
  }
}
