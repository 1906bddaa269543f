import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { CacheInvalidation } from 'src/core/events/cache-invalidation';
import { type TenantContext, runAsWorkspace } from 'src/core/tenancy/tenant-context';
import { QueuesService } from 'src/modules/queues';
import { type UpdateWorkspaceDto, type WorkspaceResponse, toWorkspaceResponse } from './dto/workspace.dto';
import { MembersRepository } from './members.repository';
import type { WorkspaceEntity, WorkspacePlan } from './workspace.entity';
import { WorkspacesRepository } from './workspaces.repository';

@Injectable()
export class WorkspacesService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly workspaces: WorkspacesRepository,
    private readonly members: MembersRepository,
    private readonly queues: QueuesService,
    private readonly invalidation: CacheInvalidation,
  ) {}

  /** A new workspace with its owner as ADMIN and its default queue, in one transaction. */
  create(values: { name: string; plan: WorkspacePlan; ownerId: string }): Promise<WorkspaceEntity> {
    return this.tx.run(async () => {
      const workspace = await this.workspaces.create({ name: values.name, plan: values.plan });
      await runAsWorkspace(workspace.id, async () => {
        await this.members.add(values.ownerId, 'ADMIN');
        await this.queues.createDefault();
        await this.queues.addToDefaultQueue(values.ownerId);
      });
      return workspace;
    });
  }

  async get(_ctx: TenantContext): Promise<WorkspaceResponse> {
    return toWorkspaceResponse(await this.workspaces.findCurrent());
  }

  async update(_ctx: TenantContext, dto: UpdateWorkspaceDto): Promise<WorkspaceResponse> {
    return toWorkspaceResponse(await this.workspaces.updateCurrent({ name: dto.name, timezone: dto.timezone }));
  }

  /** CLI: change a workspace's plan (not writable through the API). */
  async setPlan(workspaceId: string, plan: WorkspacePlan): Promise<WorkspaceEntity> {
    const updated = await this.workspaces.setPlan(workspaceId, plan);
    // Webhook receivers cache a connection's plan (ChannelDirectory): every process is told at commit.
    await this.invalidation.changed('workspace-plans');
    return updated;
  }

  /** System lookup by id (CLI). */
  findById(id: string): Promise<WorkspaceEntity | null> {
    return this.workspaces.findById(id);
  }

  existsAny(): Promise<boolean> {
    return this.workspaces.existsAny();
  }

  lockBootstrap(): Promise<void> {
    return this.workspaces.lockBootstrap();
  }

  listForUser(userId: string): Promise<{ id: string; name: string; plan: WorkspacePlan; role: string }[]> {
    return this.workspaces.listForUser(userId);
  }

  /** Operator listings for the CLI (not tenant-scoped on purpose: the CLI is the operator). */
  listAll(limit = 1000): ReturnType<WorkspacesRepository['listAll']> {
    return this.workspaces.listAll(limit);
  }

  listMembers(workspaceId: string, limit = 1000): ReturnType<WorkspacesRepository['listMembers']> {
    return this.workspaces.listMembers(workspaceId, limit);
  }

  listUsers(limit = 1000): ReturnType<WorkspacesRepository['listUsers']> {
    return this.workspaces.listUsers(limit);
  }
}
