#!/usr/bin/env node
/**
 * Build once: compiles `src/`, `migrations/` and `bench/` to `dist/` only when a source changed since
 * the last build, so `npm start` and `npm run cli` start the compiled code right away; then bundles
 * the start path's entry points into dist/bundle/ (scripts/bundle.mjs: `npm start` runs
 * dist/bundle/main.js, `npm run cli` dist/bundle/cli.js).
 *
 * Freshness is a fingerprint of every input file's path, size and mtime (plus the tsconfig files),
 * stored in dist/.build-fingerprint after a successful build. Checking it costs a few milliseconds.
 * tsc runs incrementally (dist/.tsbuildinfo), so a rebuild after a small change is quicker too.
 *
 *   node scripts/build.mjs            # build if stale
 *   node scripts/build.mjs --force    # always build
 *   node scripts/build.mjs --quiet    # no "up to date" line
 *   node scripts/build.mjs --quiet --then dist/bundle/cli.js ARGS...
 *                                     # then run that compiled file in this same process (`npm run cli`:
 *                                     # one Node start instead of two, issue 16 item 6)
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const stampFile = join(dist, '.build-fingerprint');
const thenAt = process.argv.indexOf('--then');
const then = thenAt >= 0 ? process.argv.slice(thenAt + 1) : null;
const own = thenAt >= 0 ? process.argv.slice(2, thenAt) : process.argv.slice(2);
const force = own.includes('--force');
const quiet = own.includes('--quiet');

/** `--then FILE ARGS...`: runs FILE as if started with `node FILE ARGS...`. */
async function runThen() {
  const [file, ...args] = then;
  const path = join(root, file);
  process.argv = [process.argv[0], path, ...args];
  await import(pathToFileURL(path).href);
}

function walk(dir, out) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'results' && entry.name !== 'node_modules') walk(path, out);
    } else if (entry.name.endsWith('.ts') || entry.name.endsWith('.json')) out.push(path);
  }
}

function fingerprint() {
  const files = ['tsconfig.json', 'tsconfig.build.json', 'scripts/bundle.mjs']
    .map((f) => join(root, f))
    .filter((f) => existsSync(f));
  for (const dir of ['src', 'migrations', 'bench']) walk(join(root, dir), files);
  files.sort();
  const hash = createHash('sha256');
  for (const file of files) {
    const s = statSync(file);
    hash.update(`${relative(root, file)}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest('hex');
}

if (!existsSync(join(root, 'src'))) {
  // e.g. `npm install` in a Docker layer before the sources are copied.
  if (!quiet) console.log('build: no src/ yet, skipped');
  process.exit(0);
}

const current = fingerprint();
const fresh =
  !force &&
  existsSync(join(dist, 'src', 'main.js')) &&
  existsSync(join(dist, 'bundle', 'main.js')) &&
  existsSync(stampFile) &&
  readFileSync(stampFile, 'utf8').trim() === current;
if (fresh) {
  if (!quiet) console.log('build: dist/ is up to date');
  if (then) await runThen();
  else process.exit(0);
} else {
  await build();
  if (then) await runThen();
}

async function build() {
  const bin = (name) => join(root, 'node_modules', name);
  const run = (args) => {
    const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  };
  const started = Date.now();
  run([bin('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo']);
  run([bin('tsc-alias/dist/bin/index.js'), '-p', 'tsconfig.build.json']);
  // Loaded only here: `npm install --omit=dev` environments never build (the Docker image builds before pruning).
  const { bundle } = await import('./bundle.mjs');
  await bundle(root);
  mkdirSync(dist, { recursive: true });
  writeFileSync(stampFile, `${current}\n`);
  if (!quiet) console.log(`build: compiled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
