import { Injectable } from '@nestjs/common';
import { normalizeTags } from 'src/core/domain/vocabulary';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import { EventBus } from 'src/core/events/event-bus';
import type { Page } from 'src/core/http/pagination';
import { isUuid } from 'src/core/http/uuid';
import { type TenantContext, getTenantContext } from 'src/core/tenancy/tenant-context';
import { ContactFieldsService } from './contact-fields.service';
import { ContactHydrator } from './contact-hydrator.service';
import { ContactIdentitiesRepository, type IdentityKey } from './contact-identities.repository';
import type { ContactEntity } from './contact.entity';
import { toContactNoteResponse, toContactResponse } from './contact.mapper';
import { ContactNotesRepository } from './contact-notes.repository';
import { cleanText, normalizeEmail, normalizePhone, phoneDigits } from './contact-values.util';
import { ContactsRepository } from './contacts.repository';
import { DETAIL_NOTES_LIMIT, MAX_NAME_LENGTH } from './contacts.constants';
import { applyCustomFields } from './custom-fields.util';
import type {
  ContactDetailResponse,
  ContactNoteResponse,
  ContactResponse,
  CreateContactDto,
  CreateContactNoteDto,
  ListContactsQuery,
  UpdateContactDto,
} from './dto/contact.dto';

/** The channel identity the inbound pipeline resolves a sender by. */
export interface ContactIdentityInput {
  readonly channelType: string;
  readonly channelId: string;
  readonly externalId: string;
}

/** What a channel tells about a new sender; used only when the contact is created. */
export interface ContactProfileInput {
  readonly name?: string | null;
  readonly avatarUrl?: string | null;
  readonly email?: string | null;
  readonly phone?: string | null;
}

/** A contact found by its channel identity ahead of processing (ContactsService.findByIdentities). */
export interface KnownContact {
  readonly id: string;
  readonly name: string | null;
}

/**
 * The identity as stored (type upper case, ids trimmed), and so as the unique key compares it; the
 * parts are empty when missing.
 */
function normalizeIdentity(identity: ContactIdentityInput): IdentityKey {
  return {
    channelType: identity.channelType.trim().toUpperCase(),
    channelId: identity.channelId.trim(),
    externalId: identity.externalId.trim(),
  };
}

/** One string per stored identity: the key of the map ContactsService.findByIdentities returns. */
export function contactIdentityKey(identity: ContactIdentityInput): string {
  const k = normalizeIdentity(identity);
  return JSON.stringify([k.channelType, k.channelId, k.externalId]);
}

export interface ResolvedContactResult {
  readonly contact: ContactResponse;
  readonly created: boolean;
}

@Injectable()
export class ContactsService {
  constructor(
    private readonly tx: TransactionHost,
    private readonly contacts: ContactsRepository,
    private readonly identities: ContactIdentitiesRepository,
    private readonly notes: ContactNotesRepository,
    private readonly hydrator: ContactHydrator,
    private readonly fields: ContactFieldsService,
    private readonly events: EventBus,
  ) {}

  async list(_ctx: TenantContext, query: ListContactsQuery): Promise<Page<ContactResponse>> {
    let phone: string | undefined;
    if (query.phone !== undefined) {
      phone = phoneDigits(query.phone);
      if (!phone) throw AppException.field('phone', 'must contain digits');
    }
    const page = await this.contacts.findPage(
      {
        search: query.search || undefined,
        searchDigits: query.search ? phoneDigits(query.search) : undefined,
        companyId: query.companyId,
        tag: query.tag || undefined,
        email: query.email || undefined,
        phoneDigits: phone,
        from: query.from,
        to: query.to,
      },
      query,
    );
    return { data: await this.hydrator.toResponses(page.data), nextCursor: page.nextCursor };
  }

  /** The contact with its latest notes (newest first). */
  async get(_ctx: TenantContext, id: string): Promise<ContactDetailResponse> {
    const contact = await this.contacts.getById(id);
    const [response, notes] = await Promise.all([
      this.hydrator.toResponse(contact),
      this.notes.findLatest(contact.id, DETAIL_NOTES_LIMIT),
    ]);
    return { ...response, notes: notes.map(toContactNoteResponse) };
  }

  async create(ctx: TenantContext, dto: CreateContactDto): Promise<ContactResponse> {
    const phone = checkPhone(dto.phone);
    const name = cleanText(dto.name);
    const email = dto.email ?? null;
    const identities = (dto.identities ?? []).map(toKey);
    if (!name && !email && !phone.phone && identities.length === 0) {
      throw AppException.validation('A contact needs a name, an email, a phone or an identity', [
        { field: 'name', message: 'a name, an email, a phone or an identity is required' },
      ]);
    }
    const customFields = await this.fields.check(dto.customFields ?? {}, { requireAll: true });
    const response = await this.tx.run(async () => {
      const contact = await this.contacts.create({
        name,
        email,
        phone: phone.phone,
        phoneNormalized: phone.phoneNormalized,
        avatarUrl: dto.avatarUrl ?? null,
        companyId: checkCompanyId(dto.companyId) ?? null,
        customFields: applyCustomFields({}, customFields),
        tags: normalizeTags(dto.tags ?? []),
      });
      if (identities.length > 0) await this.identities.replaceForContact(contact.id, identities);
      const created = await this.hydrator.toResponse(contact);
      await this.publish(ctx.workspaceId, 'contact.created', created);
      return created;
    });
    return response;
  }

  /** Only the fields sent change; null clears one. `customFields` are merged key by key (null removes a key). */
  async update(ctx: TenantContext, id: string, dto: UpdateContactDto): Promise<ContactResponse> {
    const customFields = dto.customFields ? await this.fields.check(dto.customFields, { requireAll: false }) : null;
    const response = await this.tx.run(async () => {
      const [current] = await this.contacts.lockByIds(isUuid(id) ? [id] : []);
      if (!current) throw AppException.notFound('Contact');
      const patch: Partial<ContactEntity> = {};
      if (dto.name !== undefined) patch.name = cleanText(dto.name);
      if (dto.email !== undefined) patch.email = dto.email;
      if (dto.phone !== undefined) Object.assign(patch, checkPhone(dto.phone));
      if (dto.avatarUrl !== undefined) patch.avatarUrl = dto.avatarUrl;
      if (dto.companyId !== undefined) patch.companyId = checkCompanyId(dto.companyId);
      if (customFields) patch.customFields = applyCustomFields(current.customFields, customFields);
      if (dto.tags !== undefined) patch.tags = normalizeTags(dto.tags);
      const nameLeft = patch.name !== undefined ? patch.name : current.name;
      const emailLeft = patch.email !== undefined ? patch.email : current.email;
      const phoneLeft = patch.phone !== undefined ? patch.phone : current.phone;
      const contact = await this.contacts.update(current.id, patch);
      if (dto.identities !== undefined) await this.identities.replaceForContact(contact.id, dto.identities.map(toKey));
      const result = await this.hydrator.toResponse(contact);
      if (!nameLeft && !emailLeft && !phoneLeft && result.identities.length === 0) {
        throw AppException.validation('A contact needs a name, an email, a phone or an identity', [
          { field: 'name', message: 'a name, an email, a phone or an identity is required' },
        ]);
      }
      await this.publish(ctx.workspaceId, 'contact.updated', result);
      return result;
    });
    return response;
  }

  /** Deletes the contact with its identities and notes. */
  remove(_ctx: TenantContext, id: string): Promise<void> {
    return this.contacts.deleteById(id);
  }

  async addNote(ctx: TenantContext, id: string, dto: CreateContactNoteDto): Promise<ContactNoteResponse> {
    const contact = await this.contacts.getById(id);
    const note = await this.notes.create({ contactId: contact.id, authorId: ctx.actor.userId, text: dto.text });
    return toContactNoteResponse(note);
  }

  /**
   * The inbound pipeline's find-or-create, inside the caller's tenant context (a job): the contact
   * holding this channel identity, or a new one made from `profile` (used only on creation), in one
   * statement and safe under concurrency (see ContactsRepository.resolveByIdentity). Invalid email,
   * phone or avatar URL in the profile are dropped rather than failing the message. Publishes
   * `contact.created` after the caller's transaction commits.
   */
  async resolveByIdentity(
    identity: { channelType: string; channelId: string; externalId: string },
    profile: { name?: string | null; avatarUrl?: string | null; email?: string | null; phone?: string | null },
  ): Promise<{ contact: ContactResponse; created: boolean }> {
    const key = normalizeIdentity(identity);
    if (!key.channelType || !key.channelId || !key.externalId) {
      throw AppException.validation('A channel identity needs channelType, channelId and externalId');
    }
    const phoneNormalized = profile.phone ? normalizePhone(profile.phone) : null;
    const avatarUrl = cleanText(profile.avatarUrl);
    const resolved = await this.contacts.resolveByIdentity(key, {
      name: cleanText(profile.name)?.slice(0, MAX_NAME_LENGTH) ?? null,
      email: profile.email ? normalizeEmail(profile.email) : null,
      phone: phoneNormalized ? cleanText(profile.phone) : null,
      phoneNormalized,
      avatarUrl: avatarUrl && /^https?:\/\//i.test(avatarUrl) && avatarUrl.length <= 2000 ? avatarUrl : null,
    });
    const company =
      resolved.contact.companyId && resolved.companyName
        ? { id: resolved.contact.companyId, name: resolved.companyName }
        : null;
    const contact = toContactResponse(resolved.contact, company, resolved.identities);
    if (resolved.created) await this.publish(getTenantContext().workspaceId, 'contact.created', contact);
    return { contact, created: resolved.created };
  }

  /**
   * The inbound pipeline's look-up for a group of events (read only, one statement): the contacts
   * already holding these channel identities, keyed by `contactIdentityKey`. An identity nobody holds
   * is absent (`resolveByIdentity` creates its contact).
   */
  async findByIdentities(identities: readonly ContactIdentityInput[]): Promise<Map<string, KnownContact>> {
    const keys = identities.map(normalizeIdentity).filter((k) => k.channelType && k.channelId && k.externalId);
    const found = new Map<string, KnownContact>();
    for (const row of await this.contacts.findByIdentities(keys)) {
      found.set(contactIdentityKey(row.key), { id: row.id, name: row.name });
    }
    return found;
  }

  /** Written with the surrounding transaction (if any); listeners run after it commits. */
  private async publish(
    workspaceId: string,
    name: 'contact.created' | 'contact.updated',
    contact: ContactResponse,
  ): Promise<void> {
    await this.events.publish(name, workspaceId, { contact });
  }
}

function toKey(i: IdentityKey): IdentityKey {
  return { channelType: i.channelType, channelId: i.channelId, externalId: i.externalId };
}

function checkPhone(raw: string | null | undefined): { phone: string | null; phoneNormalized: string | null } {
  const phone = cleanText(raw);
  if (!phone) return { phone: null, phoneNormalized: null };
  const phoneNormalized = normalizePhone(phone);
  if (!phoneNormalized) throw AppException.field('phone', 'is not a valid phone number');
  return { phone, phoneNormalized };
}

/** A company id that is not a UUID is an unknown company (404), like any id. */
function checkCompanyId(companyId: string | null | undefined): string | null | undefined {
  if (companyId === null || companyId === undefined) return companyId;
  if (!isUuid(companyId)) throw AppException.notFound('Company');
  return companyId;
}
