import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { ConversationNoteEntity } from './conversation-note.entity';

@Injectable()
export class ConversationNotesRepository extends WorkspaceScopedRepository<ConversationNoteEntity> {
  constructor(tx: TransactionHost) {
    super(tx, ConversationNoteEntity, 'n', 'Note');
  }

  /** The conversation's latest `limit` notes, oldest first. */
  async findLatest(conversationId: string, limit: number): Promise<ConversationNoteEntity[]> {
    const rows = await this.scopedQuery()
      .andWhere('n.conversation_id = :conversationId', { conversationId })
      .orderBy('n.created_at', 'DESC')
      .addOrderBy('n.id', 'DESC')
      .limit(limit)
      .getMany();
    return rows.reverse();
  }
}
