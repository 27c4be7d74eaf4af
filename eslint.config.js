import lit from 'eslint-plugin-lit';
import wc from 'eslint-plugin-wc';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'demo/generated/**', 'test/**/fixtures/**', '.tmp/**', 'custom-elements.json'] },
  ...tseslint.configs.recommended,
  {
    files: ['src/elements/**/*.ts', 'src/webmcp/**/*.ts', 'src/chat/**/*.ts', 'test/elements/**/*.ts', 'test/webmcp/**/*.ts'],
    ...lit.configs['flat/recommended'],
  },
  {
    files: ['src/elements/**/*.ts', 'src/webmcp/**/*.ts', 'src/chat/**/*.ts'],
    ...wc.configs['flat/recommended'],
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'error',
      // Tests and benches use non-null assertions on values they just created.
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // Tests wait on conditions with a safety net sized for a loaded machine (test/until.ts), not on
    // open-wc's waitUntil, which gives up after one second by default.
    files: ['test/**/*.ts'],
    ignores: ['test/until.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@open-wc/testing',
              importNames: ['waitUntil'],
              message: 'Import waitUntil from test/until.ts: its timeout is a safety net for a loaded machine, open-wc\'s gives up after 1 s.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['scripts/**/*.mjs', 'bench/**/*.mjs', '*.config.*', 'bin/**/*.js', 'demo/**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', document: 'readonly', window: 'readonly',
        setTimeout: 'readonly', clearTimeout: 'readonly', performance: 'readonly', URL: 'readonly',
      },
    },
  },
);
