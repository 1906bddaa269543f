/** Jest runs in ESM mode: NestJS 12 is ESM-only and Node 20's require(esm) is not available to Jest's CJS loader. */
const tsJest = [
  'ts-jest',
  { useESM: true, tsconfig: '<rootDir>/tsconfig.test.json', diagnostics: { warnOnly: false } },
];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': tsJest },
  moduleNameMapper: {
    '^src/(.*)\\.js$': '<rootDir>/src/$1',
    '^src/(.*)$': '<rootDir>/src/$1',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
  rootDir: __dirname,
};
/**
 * E2E specs run in groups: one Jest test file per directory of test/e2e (`*.e2e-group.ts`, which imports
 * every `*.e2e-spec.ts` there; test/utils/spec-group.ts), so the application's module graph is
 * evaluated once per directory instead of once per spec. Naming a spec file or a path inside a
 * directory of test/e2e on the command line (`npm test -- test/e2e/inbox/pipeline.e2e-spec.ts`,
 * `npm test -- test/e2e/inbox/`) runs the spec files themselves instead.
 */
const namesSpecs = (arg) => /\.(e2e|int)-spec\.ts$/.test(arg) || /(^|\/)test\/e2e\/[^/]+\//.test(arg);
const namedSpec = process.argv.slice(2).some(namesSpecs);
const e2eFiles = namedSpec
  ? ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/test/**/*.int-spec.ts']
  : [
      '<rootDir>/test/e2e/*.e2e-group.ts',
      '<rootDir>/test/e2e/*.e2e-spec.ts',
      // Specs that need a module graph of their own (test/utils/spec-group.ts, ISOLATED_SPEC_SUFFIX).
      '<rootDir>/test/e2e/**/*.isolated.e2e-spec.ts',
      '<rootDir>/test/**/*.int-spec.ts',
    ];
module.exports = {
  maxWorkers: process.env.JEST_MAX_WORKERS || 2,
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: e2eFiles,
    },
  ],
};
