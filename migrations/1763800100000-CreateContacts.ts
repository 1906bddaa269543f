import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Contacts with their companies, channel identities, notes and custom field definitions.
 * Children reference contacts by (workspace_id, contact_id), so nothing can point across workspaces.
 * Emails are stored lower-cased; phones are kept as sent plus a normalised form (`+` and digits) whose
 * digits (`ltrim(phone_normalized, '+')`) are the matching key. The identity key
 * (workspace_id, channel_type, channel_id, external_id) is unique: the inbound pipeline resolves
 * contacts by it with INSERT … ON CONFLICT.
 */
export class CreateContacts1763800100000 implements MigrationInterface {
  name = 'CreateContacts1763800100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE companies (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        name text NOT NULL,
        domain text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT companies_workspace_id_key UNIQUE (workspace_id, id),
        CONSTRAINT companies_domain_lower CHECK (domain = lower(domain))
      )`);
    await q.query(`CREATE UNIQUE INDEX companies_workspace_domain_key ON companies (workspace_id, domain)`);
    await q.query(`CREATE INDEX companies_workspace_created_idx ON companies (workspace_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX companies_workspace_name_idx ON companies (workspace_id, lower(name))`);

    await q.query(`
      CREATE TABLE contacts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        name text,
        email text,
        phone text,
        phone_normalized text,
        avatar_url text,
        company_id uuid,
        custom_fields jsonb NOT NULL DEFAULT '{}',
        tags text[] NOT NULL DEFAULT '{}',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT contacts_workspace_id_key UNIQUE (workspace_id, id),
        CONSTRAINT contacts_email_lower CHECK (email = lower(email)),
        CONSTRAINT contacts_custom_fields_object CHECK (jsonb_typeof(custom_fields) = 'object'),
        CONSTRAINT contacts_company_fkey FOREIGN KEY (workspace_id, company_id)
          REFERENCES companies (workspace_id, id) ON DELETE SET NULL (company_id)
      )`);
    await q.query(`CREATE INDEX contacts_workspace_created_idx ON contacts (workspace_id, created_at DESC, id DESC)`);
    await q.query(
      `CREATE INDEX contacts_workspace_email_idx ON contacts (workspace_id, email) WHERE email IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX contacts_workspace_phone_idx ON contacts (workspace_id, ltrim(phone_normalized, '+')) WHERE phone_normalized IS NOT NULL`,
    );
    await q.query(`CREATE INDEX contacts_workspace_name_idx ON contacts (workspace_id, name) WHERE name IS NOT NULL`);
    await q.query(
      `CREATE INDEX contacts_workspace_company_idx ON contacts (workspace_id, company_id, created_at DESC) WHERE company_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX contacts_tags_idx ON contacts USING gin (tags)`);

    await q.query(`
      CREATE TABLE contact_identities (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        contact_id uuid NOT NULL,
        channel_type text NOT NULL,
        channel_id text NOT NULL,
        external_id text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT contact_identities_key UNIQUE (workspace_id, channel_type, channel_id, external_id),
        CONSTRAINT contact_identities_contact_fkey FOREIGN KEY (workspace_id, contact_id)
          REFERENCES contacts (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX contact_identities_contact_idx ON contact_identities (workspace_id, contact_id)`);

    await q.query(`
      CREATE TABLE contact_notes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        contact_id uuid NOT NULL,
        author_id uuid REFERENCES users (id) ON DELETE SET NULL,
        text text NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT contact_notes_contact_fkey FOREIGN KEY (workspace_id, contact_id)
          REFERENCES contacts (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX contact_notes_contact_idx ON contact_notes (workspace_id, contact_id, created_at DESC, id DESC)`,
    );

    await q.query(`
      CREATE TABLE contact_fields (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        key text NOT NULL,
        label text NOT NULL,
        type text NOT NULL CHECK (type IN ('TEXT', 'NUMBER', 'DATE', 'BOOLEAN', 'SELECT')),
        options text[] NOT NULL DEFAULT '{}',
        required boolean NOT NULL DEFAULT false,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT contact_fields_workspace_id_key UNIQUE (workspace_id, id),
        CONSTRAINT contact_fields_workspace_key_key UNIQUE (workspace_id, key),
        CONSTRAINT contact_fields_key_snake CHECK (key ~ '^[a-z][a-z0-9]*(_[a-z0-9]+)*$')
      )`);
    await q.query(`CREATE INDEX contact_fields_workspace_created_idx ON contact_fields (workspace_id, created_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['contact_fields', 'contact_notes', 'contact_identities', 'contacts', 'companies']) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
