import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import type { SlaTarget } from './sla.constants';

export interface SlaBreach {
  readonly workspaceId: string;
  readonly conversationId: string;
  readonly target: SlaTarget;
  readonly policyId: string;
  readonly policyName: string;
  readonly dueAt: Date;
  readonly breachedAt: Date;
}

interface BreachRow {
  workspace_id: string;
  conversation_id: string;
  policy_id: string;
  policy_name: string;
  due_at: Date;
  breached_at: Date;
}

/** The first-response target is reached by the first reply, or by resolution without any reply. */
const FIRST_RESPONSE = {
  checked: 'first_response_checked_at',
  breached: 'first_response_breached_at',
  due: 'first_response_due_at',
  reached: 'coalesce(c.first_response_at, c.resolved_at)',
} as const;

const RESOLUTION = {
  checked: 'resolution_checked_at',
  breached: 'resolution_breached_at',
  due: 'resolution_due_at',
  reached: 'c.resolved_at',
} as const;

/**
 * SYSTEM (cross-tenant by design): the SLA breach timer. Claims the targets of every workspace whose
 * due time passed and that were never checked (FOR UPDATE SKIP LOCKED: several workers never take
 * the same row), settles each in the same statement — `*_checked_at` always, `*_breached_at` when the
 * target was not reached by its due time — and returns the breaches. A target is checked once, so a
 * breach is recorded and returned once. Runs inside the caller's transaction: the events published
 * for the breaches commit (or roll back) with the marks.
 */
@Injectable()
export class SlaBreachSweepRepository {
  constructor(private readonly tx: TransactionHost) {}

  async checkDue(target: SlaTarget, limit: number): Promise<{ checked: number; breaches: SlaBreach[] }> {
    const c = target === 'FIRST_RESPONSE' ? FIRST_RESPONSE : RESOLUTION;
    const rows: (BreachRow & { breached: boolean })[] = await this.tx.manager.query(
      `WITH due AS (
         SELECT s.id FROM conversation_slas s
          WHERE s.${c.checked} IS NULL AND s.${c.due} <= now()
          ORDER BY s.${c.due}
          LIMIT $1
          FOR UPDATE SKIP LOCKED
       ), settled AS (
         UPDATE conversation_slas s
            SET ${c.checked} = now(),
                ${c.breached} = CASE WHEN ${c.reached} IS NULL OR ${c.reached} > s.${c.due} THEN now() END
           FROM due, conversations c
          WHERE s.id = due.id AND c.workspace_id = s.workspace_id AND c.id = s.conversation_id
         RETURNING s.workspace_id, s.conversation_id, s.policy_id, s.policy_name, s.${c.due} AS due_at,
                   s.${c.breached} AS breached_at
       )
       SELECT settled.*, breached_at IS NOT NULL AS breached FROM settled`,
      [limit],
    );
    return {
      checked: rows.length,
      breaches: rows
        .filter((r) => r.breached)
        .map((r) => ({
          workspaceId: r.workspace_id,
          conversationId: r.conversation_id,
          target,
          policyId: r.policy_id,
          policyName: r.policy_name,
          dueAt: new Date(r.due_at),
          breachedAt: new Date(r.breached_at),
        })),
    };
  }
}
