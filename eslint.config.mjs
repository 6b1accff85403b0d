// ESLint (flat config): typescript-eslint's recommended rules plus the type-aware ones that catch
// real bugs here (promises nobody awaits or handles, promises passed where a value is expected).
// Formatting is Prettier's job; eslint-config-prettier switches off the rules that would disagree.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// Module boundaries (docs/architecture.md, "Module boundaries"). A module may use another module only through
// its public surface: its module class, its services, its response types, its DTOs, its pure rules (constants and
// functions with no state), its route decorators, the events catalogue, its declaration and its id kinds; never its repositories, entities,
// processors or other internals.
// no-restricted-imports sees only the import string, so "another module" is spelled per folder depth: from
// src/modules/<m>/<d folders>/file.ts, `../` (d + 1 times) then a name reaches src/modules/<other>.
const PUBLIC_SURFACE = String.raw`(?:[^/]+/)*(?:[^/]+\.(?:module|service|response|rules|decorator|declaration|ids)|[^/]+-catalogue|dto/[^/]+)$`;
const anotherModulesInternals = (depth) => ({
  regex: String.raw`^(?:\.\./){${depth + 1}}(?!\.\.)[^/]+/(?!${PUBLIC_SURFACE})`,
  message:
    'import another module only through its public surface (its *.module, *.service, *.response, *.rules, *.decorator, *.declaration, *.ids, event-catalogue or dto/): never its repository, entity or other internal files',
});
// Framework internals move between versions; the few we need are wrapped once in src/platform.
const deepFrameworkImport = {
  regex: String.raw`^(?:typeorm|bullmq|ioredis|pg|express|@nestjs/[^/]+)/`,
  message: 'deep framework imports (typeorm/driver/…, bullmq/dist/…, @nestjs/*/dist/…) belong in src/platform: wrap what you need there',
};
// Controllers are loaded only by the HTTP modules (*-http.module.ts), which only the app module imports, so the
// worker process and the core modules it imports never load a controller.
const httpSide = {
  regex: String.raw`(?:\.controller|-http\.module)$`,
  message: 'only an HTTP module (*-http.module.ts, imported by the app module alone) may import a controller or an HTTP module',
};
const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const moduleFilesAt = (depth) => [`src/modules/*/${'*/'.repeat(depth)}*.ts`];
const moduleBoundaries = [0, 1, 2, 3].map((depth) => ({
  files: moduleFilesAt(depth),
  rules: restrict(deepFrameworkImport, anotherModulesInternals(depth), httpSide),
}));

export default tseslint.config(
  { ignores: ['dist/**', 'dist-bench/**', 'node_modules/**', 'coverage/**', 'var/**', 'clients/*/dist/**', 'clients/*/src/generated/**'] },
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
    // Outside src/platform (and outside src/modules, which the blocks below cover) no deep framework imports.
    files: ['src/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    ignores: ['src/platform/**'],
    rules: restrict(deepFrameworkImport),
  },
  ...moduleBoundaries,
  {
    // The HTTP side: the HTTP modules (and the test helpers' module, itself mounted by the app module only) import controllers.
    files: ['src/modules/*/*-http.module.ts'],
    rules: restrict(deepFrameworkImport, anotherModulesInternals(0)),
  },
  {
    files: ['src/modules/job-requests/provider/test-helpers.module.ts'],
    rules: restrict(deepFrameworkImport, anotherModulesInternals(1)),
  },
  {
    // The worker process: no controller, no HTTP module, however indirectly named.
    files: ['src/worker.ts', 'src/worker.module.ts'],
    rules: restrict(deepFrameworkImport, httpSide),
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
      globals: {
        require: 'readonly',
        module: 'writable',
        process: 'readonly',
        console: 'readonly',
        __dirname: 'readonly',
        Buffer: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The account console's script runs in the browser (served as is, no bundler).
    files: ['src/modules/console/assets/*.js'],
    languageOptions: {
      sourceType: 'script',
      globals: {
        document: 'readonly',
        window: 'readonly',
        history: 'readonly',
        location: 'readonly',
        navigator: 'readonly',
        setTimeout: 'readonly',
      },
    },
  },
  prettier,
);
