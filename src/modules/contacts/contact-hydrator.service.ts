import { Injectable } from '@nestjs/common';
import { CompaniesRepository } from './companies.repository';
import { ContactIdentitiesRepository } from './contact-identities.repository';
import type { ContactEntity } from './contact.entity';
import { toContactResponse } from './contact.mapper';
import type { ContactResponse } from './dto/contact.dto';

/** Turns contact rows into responses: their companies and identities in one query each, whatever the count. */
@Injectable()
export class ContactHydrator {
  constructor(
    private readonly companies: CompaniesRepository,
    private readonly identities: ContactIdentitiesRepository,
  ) {}

  async toResponses(contacts: readonly ContactEntity[]): Promise<ContactResponse[]> {
    if (contacts.length === 0) return [];
    const companyIds = contacts.flatMap((c) => (c.companyId ? [c.companyId] : []));
    const [companies, identities] = await Promise.all([
      this.companies.findByIds(companyIds),
      this.identities.findByContactIds(contacts.map((c) => c.id)),
    ]);
    const companyById = new Map(companies.map((co) => [co.id, co]));
    return contacts.map((c) =>
      toContactResponse(
        c,
        c.companyId ? (companyById.get(c.companyId) ?? null) : null,
        identities.filter((i) => i.contactId === c.id),
      ),
    );
  }

  async toResponse(contact: ContactEntity): Promise<ContactResponse> {
    const [response] = await this.toResponses([contact]);
    if (!response) throw new Error('unreachable: one contact in, one response out');
    return response;
  }
}
