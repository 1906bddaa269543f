import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { ConversationSlaEntity } from './conversation-sla.entity';

export interface AppliedSla {
  readonly conversationId: string;
  readonly policyId: string;
  readonly policyName: string;
  readonly conversationCreatedAt: Date;
  readonly firstResponseDueAt: Date;
  readonly resolutionDueAt: Date;
}

/** One row of the summary: the whole window (`policyId` null) or one policy. */
export interface SlaSummaryRow {
  readonly policy_id: string | null;
  readonly name: string | null;
  readonly position: number | null;
  readonly conversations: number;
  readonly fr_met: number;
  readonly fr_breached: number;
  readonly fr_pending: number;
  readonly fr_rate: number | null;
  readonly fr_avg: number | null;
  readonly res_met: number;
  readonly res_breached: number;
  readonly res_pending: number;
  readonly res_rate: number | null;
  readonly res_avg: number | null;
}

/**
 * The figures of GET /sla/summary, in one statement. Each target of each conversation is in exactly
 * one state, evaluated against the conversation as it is now:
 *
 * - first response: reached at `first_response_at`, or — resolved without any reply — at
 *   `resolved_at`; met when reached by the due time, breached when reached later or not reached and
 *   past due, pending otherwise;
 * - resolution: reached at `resolved_at`, same rule.
 *
 * Averages are over the conversations that reached the target (seconds from the conversation's
 * creation, millisecond precision). GROUPING SETS give the totals and each policy's figures at once.
 * The conversations table belongs to the inbox: it is only read here, joined by its key.
 */
const SUMMARY_SQL = `
WITH s AS (
  SELECT s.policy_id, s.policy_name, s.conversation_created_at AS created_at,
         s.first_response_due_at AS fr_due, s.resolution_due_at AS res_due,
         coalesce(c.first_response_at, c.resolved_at) AS fr_reached, c.first_response_at AS fr_at,
         c.resolved_at AS res_at
    FROM conversation_slas s
    JOIN conversations c ON c.workspace_id = s.workspace_id AND c.id = s.conversation_id
   WHERE s.workspace_id = $1 AND s.conversation_created_at >= $2::timestamptz AND s.conversation_created_at < $3::timestamptz
), k AS (
  SELECT s.*,
         CASE WHEN fr_reached IS NULL THEN CASE WHEN fr_due < now() THEN 'B' ELSE 'P' END
              WHEN fr_reached <= fr_due THEN 'M' ELSE 'B' END AS fr_state,
         CASE WHEN res_at IS NULL THEN CASE WHEN res_due < now() THEN 'B' ELSE 'P' END
              WHEN res_at <= res_due THEN 'M' ELSE 'B' END AS res_state
    FROM s
), g AS (
  SELECT GROUPING(k.policy_id) AS total, k.policy_id,
         max(coalesce(p.name, k.policy_name)) AS name, min(p.position) AS position,
         count(*)::int AS conversations,
         count(*) FILTER (WHERE fr_state = 'M')::int AS fr_met,
         count(*) FILTER (WHERE fr_state = 'B')::int AS fr_breached,
         count(*) FILTER (WHERE fr_state = 'P')::int AS fr_pending,
         round(avg(extract(epoch FROM fr_at - k.created_at)) FILTER (WHERE fr_at IS NOT NULL), 3)::float8 AS fr_avg,
         count(*) FILTER (WHERE res_state = 'M')::int AS res_met,
         count(*) FILTER (WHERE res_state = 'B')::int AS res_breached,
         count(*) FILTER (WHERE res_state = 'P')::int AS res_pending,
         round(avg(extract(epoch FROM res_at - k.created_at)) FILTER (WHERE res_at IS NOT NULL), 3)::float8 AS res_avg
    FROM k
    LEFT JOIN sla_policies p ON p.workspace_id = $1 AND p.id = k.policy_id
   GROUP BY GROUPING SETS ((), (k.policy_id))
)
SELECT g.policy_id, g.name, g.position, g.conversations,
       g.fr_met, g.fr_breached, g.fr_pending, g.fr_avg,
       CASE WHEN g.fr_met + g.fr_breached > 0 THEN round(g.fr_met::numeric / (g.fr_met + g.fr_breached), 4)::float8 END AS fr_rate,
       g.res_met, g.res_breached, g.res_pending, g.res_avg,
       CASE WHEN g.res_met + g.res_breached > 0 THEN round(g.res_met::numeric / (g.res_met + g.res_breached), 4)::float8 END AS res_rate
  FROM g
 ORDER BY g.total DESC, g.position NULLS LAST, g.name, g.policy_id`;

@Injectable()
export class ConversationSlasRepository extends WorkspaceScopedRepository<ConversationSlaEntity> {
  constructor(tx: TransactionHost) {
    super(tx, ConversationSlaEntity, 's', 'Conversation SLA');
  }

  /** Records the policy applied to a conversation; false when one was applied already (first one wins). */
  async record(applied: AppliedSla): Promise<boolean> {
    const rows: { id: string }[] = await this.query(
      `INSERT INTO conversation_slas (workspace_id, conversation_id, policy_id, policy_name, conversation_created_at,
                                      first_response_due_at, resolution_due_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (workspace_id, conversation_id) DO NOTHING
       RETURNING id`,
      [
        applied.conversationId,
        applied.policyId,
        applied.policyName,
        applied.conversationCreatedAt,
        applied.firstResponseDueAt,
        applied.resolutionDueAt,
      ],
    );
    return rows.length > 0;
  }

  findByConversation(conversationId: string): Promise<ConversationSlaEntity | null> {
    return this.scopedQuery().andWhere('s.conversation_id = :conversationId', { conversationId }).getOne();
  }

  /** The summary's rows: the totals first (policy_id null), then one per policy in matching order. */
  summary(from: Date, to: Date): Promise<SlaSummaryRow[]> {
    return this.query(SUMMARY_SQL, [from, to]);
  }
}
