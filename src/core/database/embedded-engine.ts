import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { PGliteOptions } from '@electric-sql/pglite';

type EngineModule = NonNullable<PGliteOptions['pgliteWasmModule']>;
// The global WebAssembly API (this project's TypeScript libraries do not declare it).
declare const WebAssembly: { compile(bytes: Uint8Array): Promise<EngineModule> };

let compiled: Promise<EngineModule | undefined> | undefined;

/**
 * The embedded engine's WebAssembly (PGlite's `pglite.wasm`), compiled once per process. V8
 * compiles it on background threads, so main.ts and the CLI start it BEFORE they load the
 * application's modules: about 0.5 s of compilation then overlaps the loading, which runs on the
 * main thread, instead of following it (issue 16 item 6). EmbeddedPostgres.start hands the module
 * to PGlite. Undefined where `require` does not exist (Jest runs the sources as ES modules) or the
 * file cannot be compiled here: PGlite then loads its WebAssembly itself, and reports any problem.
 */
export function compiledEmbeddedEngine(): Promise<EngineModule | undefined> | undefined {
  if (compiled || typeof require !== 'function') return compiled;
  try {
    const file = join(dirname(require.resolve('@electric-sql/pglite')), 'pglite.wasm');
    compiled = WebAssembly.compile(readFileSync(file)).catch(() => undefined);
  } catch {
    compiled = Promise.resolve(undefined);
  }
  return compiled;
}
