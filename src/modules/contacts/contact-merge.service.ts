import { Injectable } from '@nestjs/common';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { EventBus } from 'src/core/events/event-bus';
import { type Page, decodeCursor, encodeCursor } from 'src/core/http/pagination';
import { DEFAULT_PAGE_SIZE } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import type { TenantContext } from 'src/core/tenancy/tenant-context';
import { ContactHydrator } from './contact-hydrator.service';
import { ContactIdentitiesRepository } from './contact-identities.repository';
import { ContactMergeHooks } from './contact-merge-hooks.service';
import { ContactNotesRepository } from './contact-notes.repository';
import type { ContactEntity } from './contact.entity';
import { unionTags } from './contact-values.util';
import { ContactsRepository } from './contacts.repository';
import { DUPLICATE_GROUP_CONTACTS } from './contacts.constants';
import type { CustomFieldValues } from './custom-fields.util';
import type { ContactResponse } from './dto/contact.dto';
import type { DuplicateGroupResponse, ListDuplicatesQuery, MergeContactsDto } from './dto/merge.dto';

const FILLABLE = ['name', 'email', 'avatarUrl', 'companyId'] as const;

/**
 * What the primary becomes: its empty fields filled from the duplicates (in the order given), custom
 * fields and tags united with the primary winning, then the earlier duplicates.
 */
export function mergedValues(primary: ContactEntity, duplicates: readonly ContactEntity[]): Partial<ContactEntity> {
  const patch: Partial<ContactEntity> = {};
  for (const field of FILLABLE) {
    if (primary[field]) continue;
    const donor = duplicates.find((d) => d[field]);
    if (donor) patch[field] = donor[field];
  }
  if (!primary.phone) {
    const donor = duplicates.find((d) => d.phone);
    if (donor) {
      patch.phone = donor.phone;
      patch.phoneNormalized = donor.phoneNormalized;
    }
  }
  const customFields: CustomFieldValues = {};
  for (const source of [...duplicates].reverse()) Object.assign(customFields, source.customFields);
  Object.assign(customFields, primary.customFields);
  patch.customFields = customFields;
  patch.tags = duplicates.reduce((tags, d) => unionTags(tags, d.tags), primary.tags);
  return patch;
}

/** Duplicate detection and merging. */
@Injectable()
export class ContactMergeService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly contacts: ContactsRepository,
    private readonly identities: ContactIdentitiesRepository,
    private readonly notes: ContactNotesRepository,
    private readonly hooks: ContactMergeHooks,
    private readonly hydrator: ContactHydrator,
    private readonly events: EventBus,
  ) {}

  /** Groups sharing an email (case-insensitive), phone digits or exact name; EMAIL groups first, then PHONE, NAME. */
  async duplicates(_ctx: TenantContext, query: ListDuplicatesQuery): Promise<Page<DuplicateGroupResponse>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    let after: { ord: number; value: string } | null = null;
    if (query.cursor) {
      const [ord, value] = decodeCursor(query.cursor, 2);
      if (typeof ord !== 'number' || typeof value !== 'string')
        throw AppException.field('cursor', 'is not a valid cursor');
      after = { ord, value };
    }
    const rows = await this.contacts.findDuplicateGroups(after, limit + 1, DUPLICATE_GROUP_CONTACTS);
    const page = rows.slice(0, limit);
    const contacts = await this.contacts.findByIds([...new Set(page.flatMap((g) => g.ids))]);
    const responses = new Map((await this.hydrator.toResponses(contacts)).map((c) => [c.id, c]));
    const last = page[page.length - 1];
    return {
      data: page.map((g) => ({
        reason: g.reason,
        value: g.value,
        count: g.count,
        contacts: g.ids.flatMap((id) => responses.get(id) ?? []),
      })),
      nextCursor: rows.length > limit && last ? encodeCursor([last.ord, last.value]) : null,
    };
  }

  /**
   * One transaction: lock all the contacts, move identities and notes (and, through the merge
   * hooks, conversations, tickets, …) to the primary, fill its empty fields, unite custom fields
   * and tags, delete the duplicates. Unknown or foreign ids → 404; the primary among the duplicates → 400.
   */
  async merge(ctx: TenantContext, dto: MergeContactsDto): Promise<ContactResponse> {
    if (dto.duplicateIds.includes(dto.primaryId)) {
      throw AppException.field('duplicateIds', 'must not contain the primary contact');
    }
    const ids = [dto.primaryId, ...dto.duplicateIds];
    if (!ids.every(isUuid)) throw AppException.notFound('Contact');
    const response = await this.tx.run(async () => {
      const locked = await this.contacts.lockByIds(ids);
      const byId = new Map(locked.map((c) => [c.id, c]));
      const primary = byId.get(dto.primaryId);
      const duplicates = dto.duplicateIds.flatMap((id) => byId.get(id) ?? []);
      if (!primary || duplicates.length !== dto.duplicateIds.length) throw AppException.notFound('Contact');
      await this.identities.moveToContact(dto.duplicateIds, primary.id);
      await this.notes.moveToContact(dto.duplicateIds, primary.id);
      await this.hooks.run(primary.id, dto.duplicateIds);
      const patch = mergedValues(primary, duplicates);
      // The duplicates go first: nothing unique on contacts today, but a future unique value moving to the primary must not collide.
      await this.contacts.deleteByIds(dto.duplicateIds);
      const merged = await this.hydrator.toResponse(await this.contacts.update(primary.id, patch));
      await this.events.publish('contact.updated', ctx.workspaceId, {
        contact: merged,
        mergedContactIds: dto.duplicateIds,
      });
      return merged;
    });
    return response;
  }
}
