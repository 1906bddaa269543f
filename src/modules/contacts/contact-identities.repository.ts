import { Injectable } from '@nestjs/common';
import { uniqueViolation } from 'src/core/database/pg-errors';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import { ContactIdentityEntity } from './contact-identity.entity';

export interface IdentityKey {
  readonly channelType: string;
  readonly channelId: string;
  readonly externalId: string;
}

function sameKey(a: IdentityKey, b: IdentityKey): boolean {
  return a.channelType === b.channelType && a.channelId === b.channelId && a.externalId === b.externalId;
}

@Injectable()
export class ContactIdentitiesRepository extends WorkspaceScopedRepository<ContactIdentityEntity> {
  constructor(tx: TransactionHost) {
    super(tx, ContactIdentityEntity, 'i', 'Identity');
  }

  /** Identities of these contacts, oldest first. */
  async findByContactIds(contactIds: readonly string[]): Promise<ContactIdentityEntity[]> {
    if (contactIds.length === 0) return [];
    return this.scopedQuery()
      .andWhere('i.contact_id = ANY(:contactIds::uuid[])', { contactIds: [...new Set(contactIds)] })
      .orderBy('i.created_at', 'ASC')
      .addOrderBy('i.id', 'ASC')
      .getMany();
  }

  /**
   * Makes `keys` the contact's identities: removes the others, adds the new ones. An identity that
   * belongs to another contact → 409 (merge the contacts instead). Run inside a transaction.
   */
  async replaceForContact(contactId: string, keys: readonly IdentityKey[]): Promise<void> {
    const current = await this.findByContactIds([contactId]);
    const removed = current.filter((c) => !keys.some((k) => sameKey(c, k))).map((c) => c.id);
    if (removed.length > 0) {
      await this.query('DELETE FROM contact_identities WHERE workspace_id = $1 AND id = ANY($2::uuid[])', [removed]);
    }
    const added = keys.filter(
      (k, i) => !current.some((c) => sameKey(c, k)) && keys.findIndex((o) => sameKey(o, k)) === i,
    );
    try {
      await this.insertMany(
        added.map((k) => ({ contactId, channelType: k.channelType, channelId: k.channelId, externalId: k.externalId })),
      );
    } catch (error) {
      if (uniqueViolation(error) === 'contact_identities_key') {
        throw AppException.conflict('A channel identity in identities already belongs to another contact');
      }
      throw error;
    }
  }

  /** Merge: the duplicates' identities now belong to the primary. */
  async moveToContact(fromContactIds: readonly string[], toContactId: string): Promise<void> {
    await this.query(
      'UPDATE contact_identities SET contact_id = $3 WHERE workspace_id = $1 AND contact_id = ANY($2::uuid[])',
      [fromContactIds, toContactId],
    );
  }
}
