import { Injectable } from '@nestjs/common';
import { Brackets } from 'typeorm';
import { foreignKeyViolation, likePattern } from 'src/core/database/pg-errors';
import { TransactionHost } from 'src/core/database/transaction-host';
import { AppException } from 'src/core/errors/app.exception';
import {
  type CursorPaginationQuery,
  type Page,
  findKeysetPage,
  newestFirst,
  sortedAfterFetch,
} from 'src/core/http/pagination';
import { WorkspaceScopedRepository } from 'src/core/tenancy/workspace-scoped.repository';
import type { IdentityKey } from './contact-identities.repository';
import { ContactEntity } from './contact.entity';
import type { CustomFieldValues } from './custom-fields.util';

export interface ContactListFilters {
  readonly search?: string;
  /** Digits of `search`, also matched against phones when there are at least 3. */
  readonly searchDigits?: string;
  readonly companyId?: string;
  readonly tag?: string;
  readonly email?: string;
  readonly phoneDigits?: string;
  readonly from?: string;
  readonly to?: string;
}

export interface ContactProfileValues {
  readonly name: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly phoneNormalized: string | null;
  readonly avatarUrl: string | null;
}

export interface ResolvedContact {
  readonly contact: ContactEntity;
  readonly created: boolean;
  readonly companyName: string | null;
  readonly identities: IdentityKey[];
}

/** A row of a CSV import as written: new contacts get every value, matched ones only the non-null ones. */
export interface ImportedContactValues {
  readonly name: string | null;
  readonly email: string | null;
  readonly phone: string | null;
  readonly phoneNormalized: string | null;
  readonly avatarUrl: string | null;
  readonly companyId: string | null;
  readonly customFields: CustomFieldValues;
  readonly tags: string[];
}

export interface DuplicateGroupRow {
  readonly ord: number;
  readonly reason: 'EMAIL' | 'PHONE' | 'NAME';
  readonly value: string;
  readonly count: number;
  readonly ids: string[];
}

const COMPANY_FK = 'contacts_company_fkey';

/** Up to this many contacts with a tag count as a rare tag (see findPage). */
const TAG_PROBE = 2000;

/** The find-or-create of the inbound pipeline: one statement (see resolveByIdentity). */
const RESOLVE_IDENTITY_SQL = `
WITH new_identity AS (
  INSERT INTO contact_identities (workspace_id, contact_id, channel_type, channel_id, external_id)
  VALUES ($1, gen_random_uuid(), $2, $3, $4)
  ON CONFLICT (workspace_id, channel_type, channel_id, external_id) DO NOTHING
  RETURNING contact_id
), new_contact AS (
  INSERT INTO contacts (id, workspace_id, name, email, phone, phone_normalized, avatar_url)
  SELECT contact_id, $1, $5, $6, $7, $8, $9 FROM new_identity
  RETURNING *
), found AS (
  SELECT nc.*, true AS created FROM new_contact nc
  UNION ALL
  SELECT c.*, false AS created
  FROM contact_identities i
  JOIN contacts c ON c.workspace_id = i.workspace_id AND c.id = i.contact_id
  WHERE i.workspace_id = $1 AND i.channel_type = $2 AND i.channel_id = $3 AND i.external_id = $4
    AND NOT EXISTS (SELECT 1 FROM new_identity)
)
SELECT f.*, co.name AS company_name,
  (SELECT coalesce(json_agg(json_build_object('channelType', ci.channel_type, 'channelId', ci.channel_id,
                                              'externalId', ci.external_id) ORDER BY ci.created_at, ci.id), '[]'::json)
     FROM contact_identities ci WHERE ci.workspace_id = f.workspace_id AND ci.contact_id = f.id) AS identities
FROM found f
LEFT JOIN companies co ON co.workspace_id = f.workspace_id AND co.id = f.company_id`;

const DUPLICATE_GROUPS_SQL = `
WITH groups AS (
  SELECT 1 AS ord, 'EMAIL' AS reason, email AS value, count(*)::int AS count,
         (array_agg(id ORDER BY created_at, id))[1:$5] AS ids
  FROM contacts WHERE workspace_id = $1 AND email IS NOT NULL
  GROUP BY email HAVING count(*) > 1
  UNION ALL
  SELECT 2, 'PHONE', ltrim(phone_normalized, '+'), count(*)::int, (array_agg(id ORDER BY created_at, id))[1:$5]
  FROM contacts WHERE workspace_id = $1 AND phone_normalized IS NOT NULL
  GROUP BY ltrim(phone_normalized, '+') HAVING count(*) > 1
  UNION ALL
  SELECT 3, 'NAME', name, count(*)::int, (array_agg(id ORDER BY created_at, id))[1:$5]
  FROM contacts WHERE workspace_id = $1 AND name IS NOT NULL
  GROUP BY name HAVING count(*) > 1
)
SELECT ord, reason, value, count, ids FROM groups
WHERE $2::int IS NULL OR (ord, value) > ($2::int, $3::text)
ORDER BY ord, value
LIMIT $4`;

/** Rows of an import batch as one JSON parameter, unpacked in SQL. */
const IMPORT_RECORD = `name text, email text, phone text, phone_normalized text, avatar_url text, company_id uuid,
  custom_fields jsonb, tags jsonb`;

function importJson(rows: readonly (ImportedContactValues & { id?: string })[]): string {
  return JSON.stringify(
    rows.map((r) => ({
      id: r.id,
      name: r.name,
      email: r.email,
      phone: r.phone,
      phone_normalized: r.phoneNormalized,
      avatar_url: r.avatarUrl,
      company_id: r.companyId,
      custom_fields: r.customFields,
      tags: r.tags,
    })),
  );
}

@Injectable()
export class ContactsRepository extends WorkspaceScopedRepository<ContactEntity> {
  constructor(tx: TransactionHost) {
    super(tx, ContactEntity, 'c', 'Contact');
  }

  /**
   * `GET /contacts`: newest first. A tag filter first reads the contacts with the tag from the GIN
   * index (`contacts_tags_idx`), at most TAG_PROBE of them: when there are fewer, the page is those
   * contacts in list order; otherwise (a common tag) the list is walked in order and filtered, which
   * fills a page quickly. Without the probe the planner walked every contact of the workspace for a
   * tag no contact has (issue 16: 100,000 contacts, 166 ms).
   */
  async findPage(filters: ContactListFilters, query: CursorPaginationQuery): Promise<Page<ContactEntity>> {
    const qb = this.scopedQuery();
    let order = newestFirst<ContactEntity>('c');
    if (filters.tag) {
      const ids = await this.rareTagMatches(filters.tag);
      if (ids) {
        qb.andWhere('c.id IN (SELECT unnest(:tagIds::uuid[]))', { tagIds: ids });
        order = sortedAfterFetch(order);
      } else qb.andWhere('c.tags @> ARRAY[:tag]::text[]', { tag: filters.tag });
    }
    if (filters.search) {
      const digits = filters.searchDigits ?? '';
      qb.andWhere(
        new Brackets((w) => {
          w.where('c.name ILIKE :search').orWhere('c.email ILIKE :search').orWhere('c.phone ILIKE :search');
          if (digits.length >= 3) w.orWhere(`ltrim(c.phone_normalized, '+') LIKE :searchDigits`);
        }),
        { search: likePattern(filters.search), searchDigits: likePattern(digits) },
      );
    }
    if (filters.companyId) qb.andWhere('c.company_id = :companyId', { companyId: filters.companyId });
    if (filters.email) qb.andWhere('c.email = :email', { email: filters.email });
    if (filters.phoneDigits)
      qb.andWhere(`ltrim(c.phone_normalized, '+') = :phoneDigits`, { phoneDigits: filters.phoneDigits });
    if (filters.from) qb.andWhere('c.created_at >= :from::timestamptz', { from: filters.from });
    if (filters.to) qb.andWhere('c.created_at < :to::timestamptz', { to: filters.to });
    return findKeysetPage(qb, query, order);
  }

  /** The ids of the contacts with this tag when there are fewer than TAG_PROBE, else null. */
  private async rareTagMatches(tag: string): Promise<string[] | null> {
    const rows = await this.queryRows<{ ids: string[] }>(
      `SELECT ARRAY(SELECT id FROM contacts WHERE workspace_id = $1 AND tags @> ARRAY[$2]::text[] LIMIT ${TAG_PROBE}) AS ids`,
      [tag],
    );
    const ids = rows[0]?.ids ?? [];
    return ids.length < TAG_PROBE ? ids : null;
  }

  /** Contacts of the caller's workspace by id, in the order asked (unknown ids left out). */
  async findByIds(ids: readonly string[]): Promise<ContactEntity[]> {
    if (ids.length === 0) return [];
    const rows = await this.scopedQuery()
      .andWhere('c.id = ANY(:ids::uuid[])', { ids: [...new Set(ids)] })
      .getMany();
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** Locks these contacts (in id order, so two merges cannot deadlock) and returns those found. */
  async lockByIds(ids: readonly string[]): Promise<ContactEntity[]> {
    if (ids.length === 0) return [];
    return this.scopedQuery()
      .andWhere('c.id = ANY(:ids::uuid[])', { ids: [...new Set(ids)] })
      .orderBy('c.id', 'ASC')
      .setLock('pessimistic_write')
      .getMany();
  }

  async create(values: Omit<Partial<ContactEntity>, 'id' | 'workspaceId'>): Promise<ContactEntity> {
    try {
      return await this.insert(values);
    } catch (error) {
      if (foreignKeyViolation(error) === COMPANY_FK) throw AppException.notFound('Company');
      throw error;
    }
  }

  async update(id: string, patch: Omit<Partial<ContactEntity>, 'id' | 'workspaceId'>): Promise<ContactEntity> {
    try {
      return await this.updateById(id, { ...patch, updatedAt: new Date() });
    } catch (error) {
      if (foreignKeyViolation(error) === COMPANY_FK) throw AppException.notFound('Company');
      throw error;
    }
  }

  async deleteByIds(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.query('DELETE FROM contacts WHERE workspace_id = $1 AND id = ANY($2::uuid[])', [ids]);
  }

  /**
   * Finds the contact holding this identity, or creates contact and identity, in ONE statement: the
   * identity is inserted first with a fresh contact id (ON CONFLICT on the unique identity key does
   * nothing), and the contact is inserted only when the identity was (foreign keys are checked at
   * the end of the statement). Two concurrent calls for one new identity: the unique index makes
   * one of them wait and then do nothing, so exactly one contact exists. The loser's statement
   * snapshot predates the winner's commit and so returns no row; it runs again (a fresh snapshot
   * under READ COMMITTED) and finds the winner's contact.
   */
  async resolveByIdentity(key: IdentityKey, profile: ContactProfileValues): Promise<ResolvedContact> {
    const params = [
      key.channelType,
      key.channelId,
      key.externalId,
      profile.name,
      profile.email,
      profile.phone,
      profile.phoneNormalized,
      profile.avatarUrl,
    ];
    for (let attempt = 0; attempt < 5; attempt++) {
      const rows: Record<string, unknown>[] = await this.query(RESOLVE_IDENTITY_SQL, params);
      const raw = rows[0];
      if (!raw) continue;
      const created = raw.created === true;
      const identities = parseIdentities(raw.identities);
      return {
        contact: this.fromRaw(raw),
        created,
        companyName: typeof raw.company_name === 'string' ? raw.company_name : null,
        // The new identity row is not visible to the statement that inserted it.
        identities: created ? [key] : identities,
      };
    }
    throw new Error('Contact identity could not be resolved: it keeps appearing and disappearing');
  }

  /**
   * The contacts already holding these channel identities, read only (the inbound pipeline's look-up
   * for a whole group of events; see ContactsService.findByIdentities). Index probes per key.
   */
  async findByIdentities(
    keys: readonly IdentityKey[],
  ): Promise<{ key: IdentityKey; id: string; name: string | null }[]> {
    if (keys.length === 0) return [];
    const rows = await this.queryRows<{
      channel_type: string;
      channel_id: string;
      external_id: string;
      id: string;
      name: string | null;
    }>(
      // LATERAL … LIMIT 1: index probes by key even in a generic plan built on a young table's
      // statistics (a plain join was planned as a scan of the workspace's contacts).
      `SELECT k.channel_type, k.channel_id, k.external_id, c.id, c.name
         FROM unnest($2::text[], $3::text[], $4::text[]) AS k(channel_type, channel_id, external_id)
         CROSS JOIN LATERAL (
           SELECT i.contact_id FROM contact_identities i
            WHERE i.workspace_id = $1 AND i.channel_type = k.channel_type AND i.channel_id = k.channel_id
              AND i.external_id = k.external_id
            LIMIT 1
         ) f
         CROSS JOIN LATERAL (SELECT c.id, c.name FROM contacts c WHERE c.workspace_id = $1 AND c.id = f.contact_id LIMIT 1) c`,
      [keys.map((k) => k.channelType), keys.map((k) => k.channelId), keys.map((k) => k.externalId)],
    );
    return rows.map((r) => ({
      key: { channelType: r.channel_type, channelId: r.channel_id, externalId: r.external_id },
      id: r.id,
      name: r.name,
    }));
  }

  /** Deleting a custom field definition removes its values from every contact. */
  async removeCustomFieldValues(key: string): Promise<void> {
    await this.query(
      'UPDATE contacts SET custom_fields = custom_fields - $2::text WHERE workspace_id = $1 AND custom_fields ? $2::text',
      [key],
    );
  }

  /** Groups of contacts sharing an email, phone digits or exact name, computed by GROUP BY; keyset on (reason, value). */
  async findDuplicateGroups(
    after: { ord: number; value: string } | null,
    limit: number,
    contactsPerGroup: number,
  ): Promise<DuplicateGroupRow[]> {
    const rows: DuplicateGroupRow[] = await this.query(DUPLICATE_GROUPS_SQL, [
      after?.ord ?? null,
      after?.value ?? null,
      limit,
      contactsPerGroup,
    ]);
    return rows;
  }

  /**
   * Oldest contact id per email, for these lower-cased emails. One index probe per key (LATERAL …
   * LIMIT 1): right after a bulk import the table has no fresh statistics, and a plain `= ANY(…)`
   * was planned as a scan of the whole workspace per batch.
   */
  async findIdsByEmails(emails: readonly string[]): Promise<Map<string, string>> {
    if (emails.length === 0) return new Map();
    const rows: { k: string; id: string }[] = await this.query(
      `SELECT k.value AS k, m.id FROM unnest($2::text[]) AS k(value)
       CROSS JOIN LATERAL (
         SELECT c.id FROM contacts c
         WHERE c.workspace_id = $1 AND c.email IS NOT NULL AND c.email = k.value
         ORDER BY c.created_at, c.id LIMIT 1
       ) m`,
      [[...new Set(emails)]],
    );
    return new Map(rows.map((r) => [r.k, r.id]));
  }

  /** Oldest contact id per phone, for these digit strings (one index probe per key, as above). */
  async findIdsByPhoneDigits(digits: readonly string[]): Promise<Map<string, string>> {
    if (digits.length === 0) return new Map();
    const rows: { k: string; id: string }[] = await this.query(
      `SELECT k.value AS k, m.id FROM unnest($2::text[]) AS k(value)
       CROSS JOIN LATERAL (
         SELECT c.id FROM contacts c
         WHERE c.workspace_id = $1 AND c.phone_normalized IS NOT NULL AND ltrim(c.phone_normalized, '+') = k.value
         ORDER BY c.created_at, c.id LIMIT 1
       ) m`,
      [[...new Set(digits)]],
    );
    return new Map(rows.map((r) => [r.k, r.id]));
  }

  /** One INSERT for a batch of imported contacts; returns the new ids. */
  async insertImported(rows: readonly ImportedContactValues[]): Promise<string[]> {
    if (rows.length === 0) return [];
    const inserted = await this.query<{ id: string }[]>(
      `WITH ins AS (
         INSERT INTO contacts (workspace_id, name, email, phone, phone_normalized, avatar_url, company_id, custom_fields, tags)
         SELECT $1, r.name, r.email, r.phone, r.phone_normalized, r.avatar_url, r.company_id, r.custom_fields,
                ARRAY(SELECT jsonb_array_elements_text(r.tags))
         FROM jsonb_to_recordset($2::jsonb) AS r(${IMPORT_RECORD})
         RETURNING id)
       SELECT id FROM ins`,
      [importJson(rows)],
    );
    return inserted.map((r) => r.id);
  }

  /**
   * One UPDATE for a batch of matched contacts: values that are null leave the column alone,
   * custom fields are merged (the file wins), tags are added. A phone with the same digits as the
   * stored one keeps the stored spelling.
   */
  async updateImported(rows: readonly (ImportedContactValues & { id: string })[]): Promise<void> {
    if (rows.length === 0) return;
    await this.query(
      `UPDATE contacts c SET
         name = coalesce(r.name, c.name),
         email = coalesce(r.email, c.email),
         phone = CASE WHEN r.phone IS NULL OR ltrim(r.phone_normalized, '+') = ltrim(c.phone_normalized, '+')
                      THEN c.phone ELSE r.phone END,
         phone_normalized = CASE WHEN r.phone IS NULL OR ltrim(r.phone_normalized, '+') = ltrim(c.phone_normalized, '+')
                                 THEN c.phone_normalized ELSE r.phone_normalized END,
         avatar_url = coalesce(r.avatar_url, c.avatar_url),
         company_id = coalesce(r.company_id, c.company_id),
         custom_fields = c.custom_fields || r.custom_fields,
         tags = c.tags || ARRAY(SELECT t FROM jsonb_array_elements_text(r.tags) AS t WHERE NOT (t = ANY(c.tags))),
         updated_at = now()
       FROM jsonb_to_recordset($2::jsonb) AS r(id uuid, ${IMPORT_RECORD})
       WHERE c.workspace_id = $1 AND c.id = r.id`,
      [importJson(rows)],
    );
  }
}

function parseIdentities(value: unknown): IdentityKey[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v: unknown) => {
    if (typeof v !== 'object' || v === null || !('channelType' in v && 'channelId' in v && 'externalId' in v))
      return [];
    const { channelType, channelId, externalId } = v;
    return typeof channelType === 'string' && typeof channelId === 'string' && typeof externalId === 'string'
      ? [{ channelType, channelId, externalId }]
      : [];
  });
}
