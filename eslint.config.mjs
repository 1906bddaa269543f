// Flat config: typescript-eslint recommended + our architecture rules (STYLE.md §1, §3, §7).
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { readdirSync } from 'node:fs';

/**
 * Module layering (docs/architecture.md, "Modules and their layers"): a module may import only
 * modules of a LOWER layer, and only through their index (`src/modules/<m>`). A new module gets a
 * layer here; one not listed is checked for deep imports only.
 */
const LAYERS = [
  ['users', 'developer', 'permissions', 'catalogue', 'channels'],
  ['contacts', 'queues'],
  ['workspaces', 'inbox'],
  ['auth', 'inbound', 'csat'],
  ['sla', 'ai-agents'],
  ['tickets'],
  // analytics is a read model: reads every module's tables through its own repositories (docs/architecture.md).
  ['automations', 'analytics'],
];
const MODULES = readdirSync(new URL('./src/modules', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const layerOf = (m) => LAYERS.findIndex((layer) => layer.includes(m));

/** Deep imports into any other module: its internals are not part of its face. */
const deepImports = (own) => ({
  group: ['src/modules/*/**', ...(own ? [`!src/modules/${own}/**`] : [])],
  message: "Import another module only through its index: 'src/modules/<name>'.",
});

/** Imports of modules in the same or a higher layer (would make the layering cyclic). */
const upwardImports = (own) => {
  const layer = layerOf(own);
  if (layer < 0) return [];
  const banned = MODULES.filter((m) => m !== own && layerOf(m) >= layer);
  return banned.length
    ? [
        {
          group: banned.flatMap((m) => [`src/modules/${m}`, `src/modules/${m}/**`]),
          message: `${own} is in layer ${layer}: it may import only modules of a lower layer (eslint.config.mjs LAYERS).`,
        },
      ]
    : [];
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '*.js', '*.mjs'] },
  ...tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through AppConfig (src/core/config).' },
      ],
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
          paths: [
            {
              name: 'typeorm',
              importNames: ['DataSource', 'EntityManager', 'Repository'],
              message: 'Only *.repository.ts and core/database may use TypeORM connections.',
            },
          ],
          patterns: [
            {
              group: ['**/modules/*/*.repository', 'src/modules/*/*.repository'],
              message: "Use the module's exported service, not its repository.",
            },
          ],
        },
      ],
    },
  },
  // Module boundaries and layering (a separate rule from the TypeORM one above, so both apply).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/modules/**', 'src/core/**'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [deepImports(null)] }] },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['src/modules', 'src/modules/**', 'src/*', '!src/core'],
              message: 'Core never imports a module or the app (modules register with core).',
            },
          ],
        },
      ],
    },
  },
  ...MODULES.map((m) => ({
    files: [`src/modules/${m}/**/*.ts`],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: [deepImports(m), ...upwardImports(m)] }],
    },
  })),
  {
    files: ['test/**/*.ts', 'src/**/*.spec.ts', 'bench/**/*.ts'],
    rules: { 'no-restricted-properties': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
