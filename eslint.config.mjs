// Flat config: typescript-eslint recommended + our architecture rules (STYLE.md §1, §3, §7).
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '*.js', '*.mjs'] },
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through AppConfig (src/core/config).' }],
    },
  },
  {
    // Only repositories and the database core may touch TypeORM's connection objects (STYLE §3).
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.repository.ts', 'src/core/database/**', 'src/core/health/**', 'src/**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'typeorm', importNames: ['DataSource', 'EntityManager', 'Repository'], message: 'Only *.repository.ts and core/database may use TypeORM connections.' }],
          patterns: [{ group: ['**/modules/*/*.repository', 'src/modules/*/*.repository'], message: "Use the module's exported service, not its repository." }],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-properties': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
