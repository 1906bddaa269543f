import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Tenancy in raw SQL, checked mechanically (STYLE §3): every repository that extends
 * `WorkspaceScopedRepository` may only reach the database through the base (no manager, no
 * `repo.query`), and every SQL statement it writes that names a tenant table (one with a
 * `workspace_id` column, read from the migrations) must restrict each use of that table by
 * `workspace_id`. `query`/`queryRows` bind the caller's workspace as `$1`.
 */
const ROOT = process.cwd();

function filesUnder(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(suffix) && !e.name.endsWith('.spec.ts'))
    .map((e) => join(e.parentPath, e.name));
}

/** Text inside balanced parentheses starting at `open` (which is a '('). */
function balanced(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return text.slice(open + 1, i);
  }
  return text.slice(open + 1);
}

/** Tables created with a `workspace_id` column (the tenant tables). */
function tenantTables(): Set<string> {
  const tables = new Set<string>();
  for (const file of filesUnder(join(ROOT, 'migrations'), '.ts')) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?(\w+)\s*\(/g)) {
      const body = balanced(text, (m.index ?? 0) + m[0].length - 1);
      if (/^\s*workspace_id\s/m.test(body)) tables.add(m[1] as string);
    }
    for (const m of text.matchAll(/ALTER TABLE (\w+)\s+ADD COLUMN (?:IF NOT EXISTS )?workspace_id\b/g)) {
      tables.add(m[1] as string);
    }
  }
  return tables;
}

function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** The string and template literals of a source file that are SQL statements. */
function sqlStatements(source: string): string[] {
  const text = withoutComments(source);
  const templates = [...text.matchAll(/`(?:[^`\\]|\\.)*`/g)].map((m) => m[0]);
  const rest = text.replace(/`(?:[^`\\]|\\.)*`/g, '``');
  const quoted = [...rest.matchAll(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g)].map((m) => m[0]);
  return [...templates, ...quoted].filter((s) => /\b(SELECT|INSERT\s+INTO|UPDATE|DELETE\s+FROM)\b/.test(s));
}

const NOT_ALIAS = new Set(
  'WHERE SET ON JOIN LEFT RIGHT INNER FULL CROSS USING GROUP ORDER LIMIT VALUES RETURNING AND OR FOR AS SELECT DEFAULT OVERRIDING ON'.split(
    ' ',
  ),
);

/** Each use of a tenant table in `sql` that is not restricted by `workspace_id`. */
function unscopedUses(sql: string, tenant: Set<string>): string[] {
  const problems: string[] = [];
  const flat = sql.replace(/\s+/g, ' ');
  for (const m of flat.matchAll(/\b(FROM|JOIN|UPDATE|INTO)\s+(\w+)(?:\s+(?:AS\s+)?(\w+))?/gi)) {
    const [, keyword, table, maybeAlias] = m as unknown as [string, string, string, string | undefined];
    if (!tenant.has(table)) continue;
    if (/^INTO$/i.test(keyword)) {
      if (!/\bworkspace_id\b/.test(flat)) problems.push(`INSERT INTO ${table} without workspace_id`);
      continue;
    }
    const alias = maybeAlias && !NOT_ALIAS.has(maybeAlias.toUpperCase()) ? maybeAlias : table;
    const after = flat.slice((m.index ?? 0) + m[0].length);
    const scoped =
      new RegExp(`\\b${alias}\\.workspace_id\\b`).test(flat) ||
      /^\s*USING\s*\(\s*workspace_id\b/i.test(after) ||
      // An unqualified `workspace_id` names the only table of a single-table statement.
      (alias === table && /\bworkspace_id\b/.test(flat) && !/\bJOIN\b|,\s*\w+\s+\w+\s+WHERE/i.test(flat));
    if (!scoped) problems.push(`${keyword.toUpperCase()} ${table}${alias !== table ? ` ${alias}` : ''}`);
  }
  return problems;
}

describe('workspace-scoped repositories: raw SQL', () => {
  const tenant = tenantTables();
  const scoped = filesUnder(join(ROOT, 'src'), '.ts')
    .map((file) => ({ file: relative(ROOT, file), source: readFileSync(file, 'utf8') }))
    .filter((f) => /extends WorkspaceScopedRepository\b/.test(f.source));

  it('finds the tenant tables and the scoped repositories', () => {
    expect(tenant.has('contacts')).toBe(true);
    expect(tenant.has('conversations')).toBe(true);
    expect(tenant.has('workspaces')).toBe(false);
    expect(tenant.has('users')).toBe(false);
    expect(scoped.length).toBeGreaterThan(20);
  });

  it('reach the database only through the base class (no manager, no repo.query)', () => {
    const bypasses = scoped.flatMap(({ file, source }) =>
      [...withoutComments(source).matchAll(/\.manager\b|\brepo\.query\(|\bDataSource\b|\bEntityManager\b/g)].map(
        (m) => `${file}: ${m[0]}`,
      ),
    );
    expect(bypasses).toEqual([]);
  });

  it('restrict every tenant table they name by workspace_id', () => {
    const problems = scoped.flatMap(({ file, source }) =>
      sqlStatements(source).flatMap((sql) => unscopedUses(sql, tenant).map((p) => `${file}: ${p}`)),
    );
    expect(problems).toEqual([]);
  });

  it('the check itself: catches a table without workspace_id and accepts one with it', () => {
    expect(unscopedUses('SELECT * FROM contacts c WHERE c.id = $2', tenant)).toEqual(['FROM contacts c']);
    expect(unscopedUses('SELECT * FROM contacts c WHERE c.workspace_id = $1', tenant)).toEqual([]);
    expect(
      unscopedUses(
        'SELECT * FROM contacts c JOIN conversations cv ON cv.contact_id = c.id WHERE c.workspace_id = $1',
        tenant,
      ),
    ).toEqual(['JOIN conversations cv']);
    expect(unscopedUses('DELETE FROM contacts WHERE workspace_id = $1 AND id = $2', tenant)).toEqual([]);
    expect(unscopedUses('INSERT INTO contacts (name) VALUES ($2)', tenant)).toEqual([
      'INSERT INTO contacts without workspace_id',
    ]);
    expect(unscopedUses('SELECT 1 FROM users WHERE id = $1', tenant)).toEqual([]);
  });
});
