/** Jest runs in ESM mode: NestJS 12 is ESM-only and Node 20's require(esm) is not available to Jest's CJS loader. */
const tsJest = ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.test.json', diagnostics: { warnOnly: false } }];
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
module.exports = {
  maxWorkers: process.env.JEST_MAX_WORKERS || 2,
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/src/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/test/**/*.int-spec.ts'],
    },
  ],
};
