import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The CSV import's stored upload in pieces (session 24, issue 16 item 5).
 *
 * `catalog_import_chunks`: the gzip-compressed upload of a preview session as pieces of at most 64 kB
 * (`seq` from 0), written and read one piece per statement, instead of `catalog_imports.content_gzip`
 * (one value of ~3 MB for a 100,000-row file). A 3 MB parameter or result costs the database several
 * copies of it at once; on the embedded engine that memory is PGlite's WebAssembly memory, which never
 * shrinks (measured: +15 MB for one 3 MB insert, +1 MB for the same bytes in 64 kB pieces). The pieces
 * go with their session (ON DELETE CASCADE: expiry, workspace deletion) and are deleted at commit.
 * Existing sessions keep their file (one piece each); `down` joins the pieces back.
 */
export class CatalogImportChunks1764400100000 implements MigrationInterface {
  name = 'CatalogImportChunks1764400100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE catalog_import_chunks (
        import_id uuid NOT NULL REFERENCES catalog_imports (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        workspace_id uuid NOT NULL,
        bytes bytea NOT NULL,
        PRIMARY KEY (import_id, seq)
      )`);
    await q.query(
      `INSERT INTO catalog_import_chunks (import_id, seq, workspace_id, bytes)
       SELECT id, 0, workspace_id, content_gzip FROM catalog_imports WHERE content_gzip IS NOT NULL`,
    );
    await q.query(`ALTER TABLE catalog_imports DROP COLUMN content_gzip`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE catalog_imports ADD COLUMN content_gzip bytea`);
    await q.query(
      `UPDATE catalog_imports i SET content_gzip = (
         SELECT string_agg(c.bytes, ''::bytea ORDER BY c.seq) FROM catalog_import_chunks c WHERE c.import_id = i.id)`,
    );
    await q.query(`DROP TABLE catalog_import_chunks`);
  }
}
