import { readdirSync } from 'node:fs';

/**
 * E2E spec groups (jest.config.js): every `*.e2e-spec.ts` of a directory of test/e2e is imported by
 * that directory's `test/e2e/<directory>.e2e-group.ts`, which Jest runs as ONE test file — the specs'
 * `describe` blocks run in turn, each with its own application and database as before. Why: Jest
 * evaluates the whole module graph (the application's ~600 modules, Nest, TypeORM, PGlite) once per
 * test file, 2.7 s of CPU on an idle machine before the first test; with 69 spec files that was
 * paid 69 times per engine, and the embedded engine's WebAssembly compiled as often. A group pays
 * it once per directory (docs/decisions.md, "Session 27: e2e specs run in groups").
 *
 * Specs that must not share a module graph end in `.isolated.e2e-spec.ts` and run as their own test
 * file: nestjs-pino builds the application's logger once per module graph, with the first
 * application's settings, so a spec that captures its own application's logs (hardening/log-secrets)
 * would capture nothing after another spec's application.
 */
export const ISOLATED_SPEC_SUFFIX = '.isolated.e2e-spec.ts';

/** The spec files of one directory that its group must import, in name order. */
export function groupedSpecsIn(directory: string): string[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.e2e-spec.ts') && !name.endsWith(ISOLATED_SPEC_SUFFIX))
    .sort();
}
