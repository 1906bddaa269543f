import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The product catalogue (DESIGN §12): items, website sync connections and their runs, and CSV import
 * sessions. Items carry two identities: the caller's own id (`external_id`, feed/CSV/manual, unique per
 * workspace: the feed's ON CONFLICT target) and, for synced products, the website's product id
 * (unique per website connection), so two shops numbering products 1, 2, 3 never collide.
 */
export class CreateCatalogue1763800300000 implements MigrationInterface {
  name = 'CreateCatalogue1763800300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog_websites (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        name text NOT NULL,
        url text NOT NULL,
        format text NOT NULL DEFAULT 'AUTO' CHECK (format IN ('AUTO', 'GENERIC', 'SHOPIFY', 'WOOCOMMERCE')),
        detected_format text CHECK (detected_format IN ('GENERIC', 'SHOPIFY', 'WOOCOMMERCE')),
        key_header_name text,
        key_header_value text,
        interval_minutes integer NOT NULL CHECK (interval_minutes BETWEEN 15 AND 1440),
        status text NOT NULL DEFAULT 'ACTIVE' CHECK (status IN ('ACTIVE', 'DISCONNECTED')),
        last_sync_at timestamptz(3),
        last_sync_status text CHECK (last_sync_status IN ('SUCCESS', 'FAILED', 'GUARD_STOPPED')),
        last_sync_message text,
        next_sync_at timestamptz(3),
        disconnected_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT catalog_websites_workspace_id_key UNIQUE (workspace_id, id),
        CONSTRAINT catalog_websites_key_header_pair CHECK ((key_header_name IS NULL) = (key_header_value IS NULL))
      )`);
    await q.query(
      `CREATE INDEX catalog_websites_workspace_created_idx ON catalog_websites (workspace_id, created_at DESC, id DESC)`,
    );
    // The timer's claim scans due connections of every workspace (system work), hence not led by workspace_id.
    await q.query(`CREATE INDEX catalog_websites_due_idx ON catalog_websites (next_sync_at) WHERE status = 'ACTIVE'`);

    await q.query(`
      CREATE TABLE catalog_items (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        external_id text,
        website_id uuid,
        website_product_id text,
        name text,
        price jsonb,
        synced_price jsonb,
        currency text,
        description text,
        sku text,
        category text,
        stock integer,
        images text[] NOT NULL DEFAULT '{}',
        keywords text[] NOT NULL DEFAULT '{}',
        status text NOT NULL DEFAULT 'ON_SALE' CHECK (status IN ('ON_SALE', 'OFF_SALE')),
        off_sale_reason text CHECK (off_sale_reason IN ('MANUAL', 'FEED', 'WEBSITE')),
        source text NOT NULL CHECK (source IN ('MANUAL', 'CSV', 'FEED', 'WEBSITE')),
        notice text,
        sent_fields text[] NOT NULL DEFAULT '{}',
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        CONSTRAINT catalog_items_workspace_id_key UNIQUE (workspace_id, id),
        CONSTRAINT catalog_items_workspace_external_key UNIQUE (workspace_id, external_id),
        CONSTRAINT catalog_items_website_product_key UNIQUE (workspace_id, website_id, website_product_id),
        CONSTRAINT catalog_items_website_pair CHECK ((website_id IS NULL) = (website_product_id IS NULL)),
        CONSTRAINT catalog_items_price_type CHECK (price IS NULL OR jsonb_typeof(price) IN ('number', 'string')),
        FOREIGN KEY (workspace_id, website_id) REFERENCES catalog_websites (workspace_id, id)
      )`);
    await q.query(
      `CREATE INDEX catalog_items_workspace_status_created_idx ON catalog_items (workspace_id, status, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX catalog_items_workspace_created_idx ON catalog_items (workspace_id, created_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX catalog_items_workspace_sku_idx ON catalog_items (workspace_id, sku) WHERE sku IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX catalog_items_workspace_name_idx ON catalog_items (workspace_id, name) WHERE name IS NOT NULL`,
    );
    await q.query(`CREATE INDEX catalog_items_workspace_category_idx ON catalog_items (workspace_id, lower(category))`);

    await q.query(`
      CREATE TABLE catalog_website_runs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL,
        website_id uuid NOT NULL,
        trigger text NOT NULL CHECK (trigger IN ('SCHEDULE', 'MANUAL')),
        status text NOT NULL DEFAULT 'RUNNING' CHECK (status IN ('RUNNING', 'SUCCESS', 'FAILED', 'GUARD_STOPPED')),
        confirm_off_sale boolean NOT NULL DEFAULT false,
        picked_at timestamptz(3),
        started_at timestamptz(3) NOT NULL DEFAULT now(),
        finished_at timestamptz(3),
        pages integer NOT NULL DEFAULT 0,
        fetched integer NOT NULL DEFAULT 0,
        created integer NOT NULL DEFAULT 0,
        updated integer NOT NULL DEFAULT 0,
        off_sale integer NOT NULL DEFAULT 0,
        restored integer NOT NULL DEFAULT 0,
        unchanged integer NOT NULL DEFAULT 0,
        message text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        FOREIGN KEY (workspace_id, website_id) REFERENCES catalog_websites (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX catalog_website_runs_workspace_website_idx ON catalog_website_runs (workspace_id, website_id, created_at DESC, id DESC)`,
    );
    // At most one run in flight per connection, across every instance.
    await q.query(
      `CREATE UNIQUE INDEX catalog_website_runs_one_running_idx ON catalog_website_runs (website_id) WHERE status = 'RUNNING'`,
    );

    await q.query(`
      CREATE TABLE catalog_imports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        created_by uuid,
        filename text,
        content_gzip bytea,
        delimiter text NOT NULL,
        headers text[] NOT NULL,
        mapping jsonb NOT NULL,
        total_rows integer NOT NULL,
        status text NOT NULL DEFAULT 'READY' CHECK (status IN ('READY', 'COMMITTING', 'COMMITTED')),
        result jsonb,
        expires_at timestamptz(3) NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(
      `CREATE INDEX catalog_imports_workspace_created_idx ON catalog_imports (workspace_id, created_at DESC, id DESC)`,
    );
    // The cleanup timer deletes expired sessions of every workspace (system work).
    await q.query(`CREATE INDEX catalog_imports_expires_idx ON catalog_imports (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['catalog_imports', 'catalog_website_runs', 'catalog_items', 'catalog_websites']) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
