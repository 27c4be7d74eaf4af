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
      // Nor do they pass time to let something happen: that races the machine. A pause that only
      // shows nothing happened, or a fake host that is slow on purpose, says so in a disable comment.
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='aTimeout'][arguments.0.type='Literal'][arguments.0.value>0]",
          message: 'Wait for a condition (waitUntil from test/until.ts) or stop the clock (test/clock.ts) instead of a pause.',
        },
        {
          // `new Promise((resolve) => setTimeout(resolve, 50))`; a safety-net timer passes a function.
          selector: "CallExpression[callee.name='setTimeout'][arguments.0.type='Identifier'][arguments.1.type='Literal'][arguments.1.value>0]",
          message: 'Wait for a condition (waitUntil from test/until.ts) or stop the clock (test/clock.ts, mock.timers) instead of a pause.',
        },
      ],
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
