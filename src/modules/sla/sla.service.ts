import { Injectable, type OnModuleInit } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ConversationOpenedHooks, ConversationsService } from 'src/modules/inbox';
import { ConversationSlasRepository } from './conversation-slas.repository';
import type { SlaSummaryQuery, SlaSummaryResponse } from './dto/sla-summary.dto';
import { type ActivePolicy, SlaPoliciesService } from './sla-policies.service';
import { type DueTimes, type SlaSubject, dueTimes, firstMatchingPolicy } from './sla-match.util';
import { EMPTY_TARGET, firstResponseFigures, resolutionFigures, toPolicyFigures } from './sla.mapper';

/** The conversation fields a policy is chosen by (the inbox's OpenedConversation has them). */
export interface SlaConversation {
  readonly id: string;
  readonly priority: string;
  readonly channelType: string;
  readonly queueId: string | null;
  readonly createdAt: Date;
}

export interface AppliedPolicy extends DueTimes {
  readonly policyId: string;
  readonly policyName: string;
}

const DEFAULT_SUMMARY_DAYS = 30;
const MAX_SUMMARY_DAYS = 366;

/**
 * Applies SLA policies (DESIGN §5.3): the first active matching policy, in `order`, sets a new
 * conversation's `firstResponseDueAt`/`resolutionDueAt` (the inbox's "conversation opened" hook, in
 * the opening transaction, before `conversation.created` is published, whichever path opened it) and a new ticket's `dueAt` (its resolution target). Due times are
 * wall-clock minutes from creation: no business hours, and hold pauses nothing. A conversation's
 * policy is chosen once, at creation; later edits to the policy or the conversation do not move it.
 */
@Injectable()
export class SlaService implements OnModuleInit {
  constructor(
    private readonly tx: TransactionHost,
    private readonly policies: SlaPoliciesService,
    private readonly applied: ConversationSlasRepository,
    private readonly conversations: ConversationsService,
    private readonly opened: ConversationOpenedHooks,
  ) {}

  onModuleInit(): void {
    this.opened.register('sla', async (conversation) => {
      await this.applyToConversation(conversation);
    });
  }

  /**
   * Applies the first matching policy to a new conversation, once: records it and writes the due
   * times onto the conversation. Joins the caller's transaction. Null when no policy matches.
   */
  async applyToConversation(conversation: SlaConversation): Promise<AppliedPolicy | null> {
    return this.tx.run(async () => {
      const policy = await this.match({
        priority: conversation.priority,
        channelType: conversation.channelType,
        queueId: conversation.queueId,
      });
      if (!policy) return null;
      const createdAt = conversation.createdAt;
      const due = dueTimes(policy, createdAt);
      const recorded = await this.applied.record({
        conversationId: conversation.id,
        policyId: policy.id,
        policyName: policy.name,
        conversationCreatedAt: createdAt,
        ...due,
      });
      if (!recorded) return null;
      await this.conversations.applySla(conversation.id, due);
      return { policyId: policy.id, policyName: policy.name, ...due };
    });
  }

  /** A new ticket's `dueAt`: creation + the matching policy's resolution minutes; null when none matches. */
  async ticketDueAt(subject: SlaSubject, createdAt: Date): Promise<Date | null> {
    const policy = await this.match(subject);
    return policy ? dueTimes(policy, createdAt).resolutionDueAt : null;
  }

  /** `GET /sla/summary`: conversations created in [from, to) that have a policy, computed in SQL. */
  async summary(_ctx: TenantContext, query: SlaSummaryQuery): Promise<SlaSummaryResponse> {
    const to = query.to ? new Date(query.to) : new Date();
    const from = query.from ? new Date(query.from) : new Date(to.getTime() - DEFAULT_SUMMARY_DAYS * 86_400_000);
    if (from.getTime() >= to.getTime()) throw AppException.field('from', 'must be before to');
    if (to.getTime() - from.getTime() > MAX_SUMMARY_DAYS * 86_400_000) {
      throw AppException.field('from', `must be at most ${MAX_SUMMARY_DAYS} days before to`);
    }
    const rows = await this.applied.summary(from, to);
    const total = rows.find((r) => r.policy_id === null);
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      conversations: total?.conversations ?? 0,
      firstResponse: total ? firstResponseFigures(total) : EMPTY_TARGET,
      resolution: total ? resolutionFigures(total) : EMPTY_TARGET,
      byPolicy: rows.flatMap((r) => (r.policy_id === null ? [] : [toPolicyFigures({ ...r, policy_id: r.policy_id })])),
    };
  }

  private async match(subject: SlaSubject): Promise<ActivePolicy | null> {
    return firstMatchingPolicy(await this.policies.activeOrdered(), subject);
  }
}
