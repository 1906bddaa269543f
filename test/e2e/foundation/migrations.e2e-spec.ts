import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { MIGRATIONS } from '../../../migrations';
import { runMigrationsLocked, schemaIsCurrent } from 'src/core/database/data-source.factory';

describe('migrations and entities', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('every entity column exists in the migrated schema with a compatible type', async () => {
    const dataSource = t.app.get(DataSource);
    const rows: { table_name: string; column_name: string; udt_name: string; is_nullable: string }[] =
      await dataSource.query(
        `SELECT table_name, column_name, udt_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public'`,
      );
    const columns = new Map(rows.map((r) => [`${r.table_name}.${r.column_name}`, r]));
    const problems: string[] = [];
    for (const entity of dataSource.entityMetadatas) {
      for (const column of entity.columns) {
        const key = `${entity.tableName}.${column.databaseName}`;
        const found = columns.get(key);
        if (!found) {
          problems.push(`${key} is missing`);
          continue;
        }
        if (column.isNullable !== (found.is_nullable === 'YES')) problems.push(`${key} nullability differs`);
        const type = String(column.type);
        const expected = column.isArray ? `_${type === 'text' ? 'text' : type}` : type;
        const udt = found.udt_name;
        const compatible =
          (expected === 'uuid' && udt === 'uuid') ||
          (expected === 'text' && udt === 'text') ||
          (expected === '_text' && udt === '_text') ||
          (expected === '_uuid' && udt === '_uuid') ||
          (expected === 'boolean' && udt === 'bool') ||
          (expected === 'timestamptz' && udt === 'timestamptz') ||
          (expected === 'jsonb' && udt === 'jsonb') ||
          (expected === 'integer' && udt === 'int4') ||
          (expected === 'int' && udt === 'int4') ||
          (expected === 'bigint' && udt === 'int8') ||
          (expected === 'numeric' && udt === 'numeric') ||
          (expected === 'double precision' && udt === 'float8') ||
          (expected === 'date' && udt === 'date') ||
          (expected === 'smallint' && udt === 'int2') ||
          (expected === 'bytea' && udt === 'bytea') ||
          (expected === 'tsvector' && udt === 'tsvector');
        if (!compatible) problems.push(`${key}: entity ${expected}, database ${udt}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('every migration reverts cleanly and applies again', async () => {
    const dataSource = t.app.get(DataSource);
    for (let i = 0; i < MIGRATIONS.length; i++) await dataSource.undoLastMigration({ transaction: 'each' });
    const left: { table_name: string }[] = await dataSource.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'migrations'`,
    );
    expect(left).toEqual([]);
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    expect(applied).toHaveLength(MIGRATIONS.length);
  });
});

describe('migrations at start: the current-schema check', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('recognises a fully migrated schema, and applies a migration that is missing', async () => {
    const dataSource = t.app.get(DataSource);
    expect(await schemaIsCurrent(dataSource)).toBe(true);
    expect(await runMigrationsLocked(dataSource)).toEqual([]);

    // The newest migration reverted: the schema is no longer current, and the start-up path applies it again.
    await dataSource.undoLastMigration({ transaction: 'each' });
    expect(await schemaIsCurrent(dataSource)).toBe(false);
    const newest = [...MIGRATIONS]
      .map((m) => m.name)
      .sort((a, b) => Number(a.slice(-13)) - Number(b.slice(-13)))
      .at(-1);
    expect(await runMigrationsLocked(dataSource)).toEqual([newest]);
    expect(await schemaIsCurrent(dataSource)).toBe(true);
  });

  it('is not current before the migrations table exists', async () => {
    const dataSource = t.app.get(DataSource);
    await dataSource.query('ALTER TABLE migrations RENAME TO migrations_aside');
    try {
      expect(await schemaIsCurrent(dataSource)).toBe(false);
    } finally {
      await dataSource.query('ALTER TABLE migrations_aside RENAME TO migrations');
    }
  });
});
