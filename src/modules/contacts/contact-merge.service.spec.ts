import { describe, expect, it } from '@jest/globals';
import { ContactEntity } from './contact.entity';
import { mergedValues } from './contact-merge.service';

function contact(values: Partial<ContactEntity>): ContactEntity {
  return Object.assign(new ContactEntity(), {
    id: 'id',
    workspaceId: 'ws',
    name: null,
    email: null,
    phone: null,
    phoneNormalized: null,
    avatarUrl: null,
    companyId: null,
    customFields: {},
    tags: [],
    createdAt: new Date(),
    updatedAt: new Date(),
    ...values,
  });
}

describe('mergedValues', () => {
  it('keeps what the primary has and fills its empty fields from the duplicates in the order given', () => {
    const primary = contact({ name: 'Primary', tags: ['vip'], customFields: { plan: 'pro' } });
    const d1 = contact({
      name: 'D1',
      email: 'd1@x.test',
      phone: '+1 555',
      phoneNormalized: '+1555',
      tags: ['lead', 'vip'],
      customFields: { plan: 'free', seats: 3 },
    });
    const d2 = contact({
      email: 'd2@x.test',
      avatarUrl: 'https://a',
      companyId: 'co',
      tags: ['churn'],
      customFields: { seats: 10, region: 'eu' },
    });
    expect(mergedValues(primary, [d1, d2])).toEqual({
      email: 'd1@x.test',
      avatarUrl: 'https://a',
      companyId: 'co',
      phone: '+1 555',
      phoneNormalized: '+1555',
      customFields: { plan: 'pro', seats: 3, region: 'eu' },
      tags: ['vip', 'lead', 'churn'],
    });
  });

  it('changes nothing the primary already has', () => {
    const primary = contact({
      name: 'P',
      email: 'p@x.test',
      phone: '1',
      phoneNormalized: '1',
      avatarUrl: 'https://p',
      companyId: 'c',
    });
    expect(
      mergedValues(primary, [contact({ name: 'D', email: 'd@x.test', phone: '2', phoneNormalized: '2' })]),
    ).toEqual({
      customFields: {},
      tags: [],
    });
  });
});
