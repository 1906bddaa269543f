import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { EventBus } from 'src/core/events/event-bus';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import type { CreateCsatDto, CsatResponse } from './dto/csat.dto';
import type { CsatResponseEntity } from './csat-response.entity';
import { CsatResponsesRepository } from './csat-responses.repository';

export function toCsatResponse(r: CsatResponseEntity): CsatResponse {
  return {
    id: r.id,
    conversationId: r.conversationId,
    score: r.score,
    comment: r.comment,
    createdAt: r.createdAt.toISOString(),
  };
}

/**
 * `POST /csat`: one rating per conversation, a later one replaces it. `csat.received` is published
 * inside the write's transaction (the bus is the event outbox's front door: the event is stored
 * with the rating, or neither is).
 */
@Injectable()
export class CsatService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly responses: CsatResponsesRepository,
    private readonly events: EventBus,
  ) {}

  async record(ctx: TenantContext, dto: CreateCsatDto): Promise<CsatResponse> {
    return this.tx.run(async () => {
      const stored = await this.responses.upsert(dto.conversationId, dto.score, dto.comment || null);
      if (!stored) throw AppException.notFound('Conversation');
      const response = toCsatResponse(stored);
      await this.events.publish('csat.received', ctx.workspaceId, { ...response });
      return response;
    });
  }
}
