import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { UsersService } from 'src/modules/users';
import type { CapacityResponse, UpdateCapacityDto } from './dto/queue.dto';
import { QueuesRepository } from './queues.repository';
import { RoutingRepository } from './routing.repository';
import { RoutingService } from './routing.service';

/** Per-agent capacity (`maxConversations`, default 5) with live workload and presence (DESIGN §5.2). */
@Injectable()
export class CapacityService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly routingState: RoutingRepository,
    private readonly queues: QueuesRepository,
    private readonly routing: RoutingService,
    private readonly users: UsersService,
  ) {}

  async get(_ctx: TenantContext): Promise<CapacityResponse> {
    const workloads = await this.routingState.workloads();
    const users = await this.users.summaries(workloads.map((w) => w.userId));
    return {
      data: workloads.map((w) => ({
        userId: w.userId,
        name: users.get(w.userId)?.name ?? '',
        maxConversations: w.maxConversations,
        openConversations: w.openConversations,
        presence: w.presence,
        available: w.presence === 'ONLINE' && w.openConversations < w.maxConversations,
      })),
    };
  }

  /** Sets limits for the listed agents; raised limits let waiting conversations be assigned at once. */
  async update(ctx: TenantContext, dto: UpdateCapacityDto): Promise<CapacityResponse> {
    await this.tx.run(async () => {
      const members = await this.queues.existingMembers(dto.agents.map((a) => a.userId));
      const index = dto.agents.findIndex((a) => !members.has(a.userId));
      if (index >= 0) throw AppException.field(`agents.${index}.userId`, 'is not a member of this workspace');
      for (const agent of dto.agents) await this.routingState.setCapacity(agent.userId, agent.maxConversations);
    });
    for (const agent of dto.agents) await this.routing.onCapacityFreed(agent.userId);
    return this.get(ctx);
  }
}
