import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { type AiConversationStatus, AiConversationStateEntity } from './ai-conversation-state.entity';

@Injectable()
export class AiConversationStatesRepository extends WorkspaceScopedRepository<AiConversationStateEntity> {
  constructor(tx: TransactionHost) {
    super(tx, AiConversationStateEntity, 's', 'AI conversation state');
  }

  /** The conversation's state (null: none, i.e. ACTIVE): one unique-key read, no entity built. */
  async statusOf(conversationId: string): Promise<AiConversationStatus | null> {
    const rows: { status: AiConversationStatus }[] = await this.query(
      `SELECT status FROM ai_conversation_states WHERE workspace_id = $1 AND conversation_id = $2`,
      [conversationId],
    );
    return rows[0]?.status ?? null;
  }

  /** One statement: creates or overwrites the conversation's state. */
  async upsert(
    conversationId: string,
    values: { status: AiConversationStatus; agentId?: string | null; handoffReason?: string | null },
  ): Promise<void> {
    const handedOff = values.status === 'HANDED_OFF';
    await this.query(
      `INSERT INTO ai_conversation_states (workspace_id, conversation_id, agent_id, status, handed_off_at, handoff_reason)
       VALUES ($1, $2, $3, $4, CASE WHEN $5 THEN now() END, $6)
       ON CONFLICT (workspace_id, conversation_id) DO UPDATE SET
         status = EXCLUDED.status,
         agent_id = COALESCE(EXCLUDED.agent_id, ai_conversation_states.agent_id),
         handed_off_at = CASE WHEN $5 THEN COALESCE(ai_conversation_states.handed_off_at, now()) ELSE ai_conversation_states.handed_off_at END,
         handoff_reason = COALESCE(EXCLUDED.handoff_reason, ai_conversation_states.handoff_reason),
         updated_at = now()`,
      [conversationId, values.agentId ?? null, values.status, handedOff, values.handoffReason ?? null],
    );
  }
}
