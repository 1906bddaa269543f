import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { PresenceResponse, SetPresenceDto } from './dto/queue.dto';
import { QueuesRepository } from './queues.repository';
import { RoutingRepository } from './routing.repository';
import { RoutingService } from './routing.service';

/**
 * `POST /analytics/presence`: a member's ONLINE / AWAY / OFFLINE. Each change closes the open
 * presence interval and opens a new one (workforce analytics sums them); repeating the current status
 * changes nothing. Coming ONLINE assigns waiting conversations of the member's queues.
 */
@Injectable()
export class PresenceService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly routingState: RoutingRepository,
    private readonly queues: QueuesRepository,
    private readonly routing: RoutingService,
  ) {}

  async set(ctx: TenantContext, dto: SetPresenceDto): Promise<PresenceResponse> {
    const userId = this.subjectOf(ctx, dto);
    if (!(await this.queues.existingMembers([userId])).has(userId)) throw AppException.notFound('Member');
    const since = await this.tx.run(async () => {
      const current = await this.routingState.lockStatus(userId);
      if (current?.presence === dto.status) return current.presenceChangedAt;
      const changedAt = await this.routingState.setPresence(userId, dto.status);
      await this.routingState.startPresenceInterval(userId, dto.status);
      return changedAt;
    });
    const assigned = dto.status === 'ONLINE' ? await this.routing.onAgentAvailable(userId) : 0;
    return { userId, status: dto.status, since: since.toISOString(), assigned };
  }

  /** Users set their own presence; an API token names the member. */
  private subjectOf(ctx: TenantContext, dto: SetPresenceDto): string {
    if (ctx.actor.type === 'user' && ctx.actor.userId) {
      if (dto.userId && dto.userId !== ctx.actor.userId)
        throw AppException.forbidden('You can only set your own presence');
      return ctx.actor.userId;
    }
    if (!dto.userId) throw AppException.field('userId', 'is required with an API token');
    return dto.userId;
  }
}
