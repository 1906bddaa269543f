import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * A short hash of the names and contents of every file under `dirs` (relative to the project root):
 * what test-time caches (the migrated template database, the OpenAPI document) are keyed by, so
 * they are rebuilt whenever a file they derive from changes.
 */
export function treeHash(dirs: readonly string[], extra = ''): string {
  const root = process.cwd();
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  for (const dir of dirs) if (existsSync(join(root, dir))) walk(join(root, dir));
  const hash = createHash('sha256').update(extra);
  for (const file of files.sort()) hash.update(relative(root, file)).update('\0').update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}
