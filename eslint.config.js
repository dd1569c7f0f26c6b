// Lint (issue 19): type-aware rules that catch what tsc does not — floating promises, switches over
// closed unions that miss a case, unused variables. `npm run lint`; CI runs it.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'data/**',
      'packages/sdk/src/generated/**',
      'packages/*/dist/**',
      '**/*.js',
      '**/*.cjs',
      '**/*.mjs',
      // Type-checked by their own strict tsconfig against freshly generated clients (test/clients).
      'test/clients/lifecycles/**',
      'vitest.e2e.config.ts',
    ],
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.base],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      '@typescript-eslint/await-thenable': 'error',
      // More than four inputs travel as one object, so a call names what it passes (issue 34).
      '@typescript-eslint/max-params': ['error', { max: 4 }],
    },
  },
  {
    // Functions a reader takes in at once (issue 19); a longer one needs an eslint-disable with its reason beside it.
    files: ['src/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }] },
  },
);
