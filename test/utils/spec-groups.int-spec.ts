import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ISOLATED_SPEC_SUFFIX, groupedSpecsIn } from './spec-group';

const E2E = join(process.cwd(), 'test', 'e2e');

/** Every e2e spec runs in the default `npm test`: through its directory's group, or on its own. */
describe('e2e spec groups', () => {
  const directories = readdirSync(E2E).filter((name) => statSync(join(E2E, name)).isDirectory());

  it('imports every spec of a directory in its group file, and nothing else', () => {
    for (const directory of directories) {
      const path = join(E2E, directory);
      const specs = groupedSpecsIn(path);
      const group = join(E2E, `${directory}.e2e-group.ts`);
      if (specs.length === 0) {
        // Only isolated specs (their own test files) may live in a directory without a group.
        expect({ directory, isolated: readdirSync(path).some((name) => name.endsWith(ISOLATED_SPEC_SUFFIX)) }).toEqual({
          directory,
          isolated: true,
        });
        continue;
      }
      expect({ directory, group: existsSync(group) }).toEqual({ directory, group: true });
      const imported = [...readFileSync(group, 'utf8').matchAll(/^import '\.\/([^']+)';$/gm)].map((m) => m[1]);
      expect(imported).toEqual(specs.map((name) => `${directory}/${name.replace(/\.ts$/, '')}`));
      // A group sees its own directory only.
      for (const sub of readdirSync(path).filter((name) => statSync(join(path, name)).isDirectory())) {
        expect(readdirSync(join(path, sub)).filter((name) => name.endsWith('.e2e-spec.ts'))).toEqual([]);
      }
    }
  });

  it('has no group file without its directory', () => {
    const groups = readdirSync(E2E).filter((name) => name.endsWith('.e2e-group.ts'));
    expect(groups.length).toBeGreaterThan(0);
    for (const group of groups) expect(directories).toContain(group.replace('.e2e-group.ts', ''));
  });
});
