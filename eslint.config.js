// ESLint 9 flat config. Correctness rules only: nothing here fights a formatter.
// Type-aware rules run on every `.ts` file through the TypeScript project service (tsconfig.json).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Globals for the few plain-JS config files at the repo root (no `globals` dependency needed).
const nodeGlobals = {
  process: 'readonly',
  console: 'readonly',
  URL: 'readonly',
  module: 'writable',
  require: 'readonly',
  __dirname: 'readonly',
  __filename: 'readonly',
};

export default tseslint.config(
  {
    // The package consumers' TypeScript is compiled by the package test in its own tsc --init project.
    ignores: ['**/node_modules/**', 'dist/**', 'coverage/**', '.tmp/**', 'specs/package/fixtures/typed/**'],
  },

  // Plain JS / CJS config files (eslint.config.js, .dependency-cruiser.cjs): untyped, recommended only.
  {
    files: ['**/*.{js,mjs,cjs}'],
    extends: [js.configs.recommended],
    languageOptions: { globals: nodeGlobals },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },

  // All TypeScript: recommended + type-aware correctness rules.
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: {
      reportUnusedDisableDirectives: 'error',
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'separate-type-imports' },
      ],
      // Without a `default`, every member of a union must have a case (new message kinds surface here).
      // A `default` is an explicit catch-all (e.g. `switch (typeof v)`), so it counts as exhaustive.
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      'no-unused-vars': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },

  // Runtime neutrality: core/, actors/, machines/, session/, server/, client/, limits/ (not limits/nats/) and otel/ also run in browsers, Deno and edge workers, which have
  // none of Node's globals (the layer check forbids Node's modules). A runtime's own fast path is reached by
  // feature detection on globalThis (core/bytes.ts, core/next-turn.ts), never by name. The stream framing
  // codecs (NDJSON, length prefix) still lean on Buffer: they serve byte-stream transports (stdio, NATS) only.
  {
    files: ['core/**/*.ts', 'actors/**/*.ts', 'machines/**/*.ts', 'session/**/*.ts', 'server/**/*.ts', 'client/**/*.ts', 'limits/*.ts', 'otel/*.ts', 'auth/**/*.ts'],
    ignores: ['core/codecs/ndjson.ts', 'core/codecs/length-prefix.ts', 'core/codecs/framing.ts', 'core/codecs/frame-items.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...['Buffer', 'process', 'setImmediate', 'clearImmediate', 'global', '__dirname', '__filename', 'require'].map((name) => ({
          name,
          message: `${name} is Node's: core/, actors/, machines/, session/, server/ and client/ must run in every runtime (see core/bytes.ts, core/next-turn.ts)`,
        })),
      ],
    },
  },

  // Specs and benchmarks: node:test's test()/describe()/it()/suite() return promises that the runner
  // itself tracks, so calling them without `await` is correct and must not be flagged.
  {
    files: ['specs/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', name: ['test', 'describe', 'it', 'suite', 'skip', 'only', 'todo'], package: 'node:test' },
          ],
        },
      ],
    },
  },
);
