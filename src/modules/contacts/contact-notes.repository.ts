import { Injectable } from '@nestjs/common';
import { foreignKeyViolation } from 'src/core/database/pg-errors';
import { TransactionHost } from 'src/core/database/transaction-host';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { ContactNoteEntity } from './contact-note.entity';
import { AppException } from 'src/core/errors/app.exception';

@Injectable()
export class ContactNotesRepository extends WorkspaceScopedRepository<ContactNoteEntity> {
  constructor(tx: TransactionHost) {
    super(tx, ContactNoteEntity, 'n', 'Note');
  }

  /** A note on a contact of the caller's workspace; a contact deleted meanwhile → 404. */
  async create(values: { contactId: string; authorId: string | null; text: string }): Promise<ContactNoteEntity> {
    try {
      return await this.insert(values);
    } catch (error) {
      if (foreignKeyViolation(error) !== null) throw AppException.notFound('Contact');
      throw error;
    }
  }

  findLatest(contactId: string, limit: number): Promise<ContactNoteEntity[]> {
    return this.scopedQuery()
      .andWhere('n.contact_id = :contactId', { contactId })
      .orderBy('n.created_at', 'DESC')
      .addOrderBy('n.id', 'DESC')
      .limit(limit)
      .getMany();
  }

  /** Merge: the duplicates' notes now belong to the primary. */
  async moveToContact(fromContactIds: readonly string[], toContactId: string): Promise<void> {
    await this.query(
      'UPDATE contact_notes SET contact_id = $3 WHERE workspace_id = $1 AND contact_id = ANY($2::uuid[])',
      [fromContactIds, toContactId],
    );
  }
}
