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
    files: ['scripts/**/*.mjs', 'bench/**/*.mjs', '*.config.*', 'bin/**/*.js', 'demo/**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly', console: 'readonly', document: 'readonly', window: 'readonly',
        setTimeout: 'readonly', clearTimeout: 'readonly', performance: 'readonly', URL: 'readonly',
      },
    },
  },
);
