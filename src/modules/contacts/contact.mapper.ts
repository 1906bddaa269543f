import type { ContactIdentityEntity } from './contact-identity.entity';
import type { ContactNoteEntity } from './contact-note.entity';
import type { ContactEntity } from './contact.entity';
import type { IdentityKey } from './contact-identities.repository';
import type { ContactCompanySummary, ContactNoteResponse, ContactResponse } from './dto/contact.dto';

export function toIdentityKey(i: IdentityKey | ContactIdentityEntity): IdentityKey {
  return { channelType: i.channelType, channelId: i.channelId, externalId: i.externalId };
}

export function toContactResponse(
  c: ContactEntity,
  company: ContactCompanySummary | null,
  identities: readonly IdentityKey[],
): ContactResponse {
  return {
    id: c.id,
    name: c.name,
    email: c.email,
    phone: c.phone,
    avatarUrl: c.avatarUrl,
    companyId: c.companyId,
    company: c.companyId && company ? { id: company.id, name: company.name } : null,
    customFields: c.customFields,
    tags: c.tags,
    identities: identities.map(toIdentityKey),
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  };
}

export function toContactNoteResponse(n: ContactNoteEntity): ContactNoteResponse {
  return { id: n.id, contactId: n.contactId, authorId: n.authorId, text: n.text, createdAt: n.createdAt.toISOString() };
}
