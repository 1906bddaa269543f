import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { isUuid } from 'src/core/http/uuid';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { CsatResponseEntity } from './csat-response.entity';

@Injectable()
export class CsatResponsesRepository extends WorkspaceScopedRepository<CsatResponseEntity> {
  constructor(tx: TransactionHost) {
    super(tx, CsatResponseEntity, 'r', 'CSAT response');
  }

  /**
   * Stores the conversation's rating, replacing an earlier one (its time becomes now). Null when the
   * conversation is not one of the caller's workspace: the INSERT selects it under the workspace
   * predicate, so a foreign id inserts nothing.
   */
  async upsert(conversationId: string, score: number, comment: string | null): Promise<CsatResponseEntity | null> {
    if (!isUuid(conversationId)) return null;
    const rows = await this.queryRows<Record<string, unknown>>(
      `INSERT INTO csat_responses (workspace_id, conversation_id, score, comment)
       SELECT c.workspace_id, c.id, $3, $4 FROM conversations c WHERE c.workspace_id = $1 AND c.id = $2
       ON CONFLICT (workspace_id, conversation_id)
         DO UPDATE SET score = EXCLUDED.score, comment = EXCLUDED.comment,
                       created_at = clock_timestamp(), updated_at = now()
       RETURNING *`,
      [conversationId, score, comment],
    );
    return rows[0] ? this.fromRaw(rows[0]) : null;
  }
}
