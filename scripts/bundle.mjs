/**
 * The start path's entry points as single CommonJS files (dist/bundle/), made by esbuild from tsc's
 * output in dist/ (which already carries the decorator metadata), issue 16 item 6.
 *
 * Why: NestJS 12 and its packages are ES modules that Node 20 loads through `require(esm)`, one file
 * at a time, with no compile cache: resolving, reading and compiling several hundred small modules
 * was most of a restart's main-thread CPU. One bundle is read and compiled once (docs/performance.md,
 * "Session 25: start-up"; docs/decisions.md).
 *
 * Kept external (loaded from node_modules at run time, as before):
 * - packages that find files next to themselves: PGlite (its .wasm/.data), swagger-ui-dist (the
 *   /docs assets), pino (its transport worker files), ioredis (its package.json), msgpackr-extract
 *   (a native binary);
 * - pg: TypeORM loads its driver by name (`require(name)`), so bundling it would make two copies;
 * - bullmq: only loaded with Redis (queue.module.ts), so the embedded start does not parse it;
 * - optional packages Nest and others ask for by name and that are not installed.
 * Every package that imports `@nestjs/*` must be inside the bundle: a second copy of Nest would not
 * share its classes and registries.
 */
import { existsSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import * as esbuild from 'esbuild';

export const BUNDLE_DIR = join('dist', 'bundle');

/**
 * The service: tsc's output → the bundle's file name. The worker files sit next to main.js, where
 * embedded-postgres.ts looks for them (`__dirname`).
 */
const SERVICE_ENTRIES = {
  main: 'dist/src/main.js',
  'embedded-worker': 'dist/src/core/database/embedded-worker.js',
  'embedded-initialiser': 'dist/src/core/database/embedded-initialiser.js',
};

/**
 * The CLI stays two parts: its front (dist/src/cli.js, unbundled: it loads no Nest and answers through
 * a running service's admin socket in a fraction of the bundle's compile time) and its direct path
 * (cli-direct.ts: Nest, the database), bundled. The front's own modules stay outside that bundle, so
 * both parts share one copy of them (the engine started early by EmbeddedPostgres, the error classes
 * cli.ts tells apart).
 */
const CLI_FRONT = 'dist/src/cli.js';
const CLI_DIRECT = 'dist/src/cli-direct.js';
const DEMO_SEED = 'dist/src/demo-seed.js';

const EXTERNAL = [
  '@electric-sql/pglite',
  '@electric-sql/pglite/*',
  'swagger-ui-dist',
  'swagger-ui-dist/*',
  'pino',
  'pino-pretty',
  'ioredis',
  'msgpackr-extract',
  'pg',
  'pg-native',
  'pg-query-stream',
  'bullmq',
  // Optional, not installed: asked for by name, inside a try or a lazy import.
  '@nestjs/microservices',
  '@nestjs/microservices/*',
  '@nestjs/websockets',
  '@nestjs/websockets/*',
  '@fastify/static',
  'class-transformer/storage',
  '@valkey/valkey-glide',
];

/**
 * `const require = createRequire(import.meta.url)` in Nest packages (@nestjs/mapped-types,
 * @nestjs/terminus, @nestjs/swagger): esbuild cannot see through it, so the packages those files
 * require (class-validator, class-transformer's metadata storage, @nestjs/swagger) would load a
 * second time from node_modules at run time, and class-transformer's storage would not be the one
 * the DTOs registered with. Without the line the plain `require(...)` calls are bundled.
 */
const createRequireLine = /^const require = createRequire\(import\.meta\.url\);$/m;
const seeThroughCreateRequire = {
  name: 'see-through-create-require',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]@nestjs[\\/].*\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      return { contents: createRequireLine.test(text) ? text.replace(createRequireLine, '') : text, loader: 'js' };
    });
  },
};

/** What `import.meta` means inside the CommonJS bundle (ES module packages use it for `createRequire`). */
const IMPORT_META =
  'const __bundleImportMeta = { url: require("node:url").pathToFileURL(__filename).href, dirname: __dirname, ' +
  'filename: __filename, resolve: (s) => require("node:url").pathToFileURL(require.resolve(s)).href };';

/** What every bundle shares. */
const COMMON = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Nest and TypeORM use class names (providers, Swagger schema names, migration names); esbuild
  // renames clashing top-level names across modules, `keepNames` keeps `.name` as written.
  keepNames: true,
  // No source map: it would add ~50 % to the bundling CPU and 35 MB to dist/. A stack trace names
  // the function (and, with `keepNames`, its class) and the bundle's line and column; for TypeScript
  // positions run the unbundled `node --enable-source-maps dist/src/main.js` (tsc's maps).
  //
  // Whitespace and comments removed (identifiers and syntax stay as written): main.js 11.0 → 7.7 MB.
  // Node reads an entry file into one malloc'd buffer that grows to the next power of two; freeing
  // the 16 MB one raised glibc's dynamic mmap threshold to 16 MB (and its trim threshold to 32 MB)
  // before any request, so every arena kept what it freed afterwards. Measured with
  // csv-memory-probe.js (docs/performance.md, "Session 29"): idle main arena 33 → 24 MB, the
  // embedded 100,000-row commit's peak 298 → 288 MB with the scrypt change of password.util.ts.
  minifyWhitespace: true,
  external: EXTERNAL,
  define: { 'import.meta': '__bundleImportMeta' },
  banner: { js: IMPORT_META },
  // `import()` of bundled code becomes a lazy require (no ES module loader at run time).
  supported: { 'dynamic-import': false },
  plugins: [seeThroughCreateRequire],
  logLevel: 'error',
};

/** Our own modules (dist/src) that the CLI's front loads, as absolute paths. */
async function frontModules(root) {
  const { metafile } = await esbuild.build({
    ...COMMON,
    absWorkingDir: root,
    entryPoints: [CLI_FRONT],
    external: [...EXTERNAL, './cli-direct.js'],
    write: false,
    metafile: true,
  });
  return new Set(Object.keys(metafile.inputs).filter((f) => f.startsWith('dist/src/')).map((f) => resolve(root, f)));
}

/** Makes `shared` modules external, required by their path relative to the bundle (dist/bundle → dist/src). */
function requireFromDist(root, shared) {
  const outDir = resolve(root, BUNDLE_DIR);
  return {
    name: 'require-from-dist',
    setup(build) {
      build.onResolve({ filter: /^\./ }, (args) => {
        const base = resolve(args.resolveDir, args.path);
        const file = [base, `${base}.js`, join(base, 'index.js')].find((f) => shared.has(f) && existsSync(f));
        return file ? { path: relative(outDir, file), external: true } : undefined;
      });
    },
  };
}

/** Bundles the entries into `root`/dist/bundle/; throws on any esbuild error. */
export async function bundle(root) {
  rmSync(resolve(root, BUNDLE_DIR), { recursive: true, force: true });
  await esbuild.build({
    ...COMMON,
    absWorkingDir: root,
    entryPoints: Object.entries(SERVICE_ENTRIES).map(([out, input]) => ({ in: input, out })),
    outdir: BUNDLE_DIR,
  });
  const shared = await frontModules(root);
  // `demo:seed` starts the whole application (demo-seed.ts imports AppModule): left out of the
  // direct path's bundle, it would make every other command parse the whole app (the bundle went
  // 10.9 → ~4 MB). The seed runs tsc's output from dist/src instead, with its own copy of Nest
  // (it builds its own application; nothing crosses between the two).
  shared.add(resolve(root, DEMO_SEED));
  await esbuild.build({
    ...COMMON,
    absWorkingDir: root,
    entryPoints: [{ in: CLI_DIRECT, out: 'cli-direct' }],
    outdir: BUNDLE_DIR,
    plugins: [...COMMON.plugins, requireFromDist(root, shared)],
  });
}
