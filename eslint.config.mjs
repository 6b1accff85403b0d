// ESLint (flat config): typescript-eslint's recommended rules plus the type-aware ones that catch
// real bugs here (promises nobody awaits or handles, promises passed where a value is expected).
// Formatting is Prettier's job; eslint-config-prettier switches off the rules that would disagree.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'dist-bench/**', 'node_modules/**', 'coverage/**', 'var/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-unused-expressions': 'error',
    },
  },
  {
    // Layers point one way: modules use platform, never the reverse.
    files: ['src/platform/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/modules/**'], message: 'platform must not depend on a module' }] }],
    },
  },
  {
    // Inside platform, http may use the transport-free layers (context, idempotency, database), never the reverse.
    files: ['src/platform/context/**/*.ts', 'src/platform/idempotency/**/*.ts', 'src/platform/database/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/modules/**', '**/http/**', 'express'], message: 'a transport-free layer must not depend on HTTP or a module' },
          ],
        },
      ],
    },
  },
  {
    // Tests read JSON bodies and problem documents loosely; `any` there is the honest type.
    files: ['test/**/*.ts', '**/*.spec.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: {
      globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
