// Lint: typescript-eslint recommended, React hooks rules, and the layering rule of CONTRIBUTING.md.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

const layer = (files, patterns) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { patterns }] },
});
const io = {
  group: ['node:*', 'fs', 'path', 'os', 'child_process'],
  message: 'core is pure: no I/O',
};
const ui = { group: ['react', 'ink', '**/ui/*', '**/ui/**'], message: 'core has no UI' };
// An engine is one folder that only engines/registry.ts imports; the other layers read engines/store.ts.
const engineFolders = {
  group: ['**/engines/*/*', '**/engines/*/**', '**/engines/registry.js'],
  message: 'read engines through engines/store.ts: only engines/registry.ts imports engine folders',
};
// The commands, io and UI layers may import engines/registry.ts and store.ts, never an engine's own folder.
const engineFolder = {
  group: ['**/engines/*/*', '**/engines/*/**'],
  message:
    'read engines through engines/registry.ts or store.ts: only engines/registry.ts imports engine folders',
};
const up = (dir) => ({
  group: [`**/${dir}/*`, `**/${dir}/**`],
  message: `this layer may not import ${dir}/`,
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  layer(['src/schema/**'], [up('core'), up('io'), up('ui'), up('commands'), up('solve')]),
  layer(['src/core/**'], [io, ui, up('io'), up('commands')]),
  {
    ...layer(['src/core/**'], [io, ui, up('io'), up('commands'), engineFolders]),
    // The registry's own folder, and the entry points that register the built-in engines.
    ignores: ['src/core/engines/**', 'src/core/estimate.ts', 'src/core/index.ts'],
  },
  layer(['src/io/**'], [up('ui'), up('commands'), engineFolder]),
  layer(['src/ui/**'], [up('io'), up('commands'), engineFolder]),
  layer(['src/commands/**'], [engineFolder]),
  {
    files: ['scripts/**', '*.js', '*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
