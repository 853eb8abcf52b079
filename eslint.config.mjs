// ESLint for the TypeScript and JavaScript the repository writes (./dev test runs it as
// `./dev lint`). Formatting is prettier's (.prettierrc.json); these rules catch mistakes:
// the recommended sets of ESLint and typescript-eslint, without type information (fast: one
// pass over the files, no program build).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // Generated or installed: Emscripten's glue, bundles, the examples' dependencies.
    ignores: [
      'build/**',
      'dist/**',
      'node_modules/**',
      'examples/*/node_modules/**',
      'examples/*/dist/**',
      'examples/*/.astro/**',
      'tmp/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      // Browser, worker and Node code share the tree; tsc checks the TypeScript's names, and
      // the JavaScript may use any of the three sets.
      globals: { ...globals.browser, ...globals.worker, ...globals.node },
    },
    rules: {
      // `_name` marks a parameter kept for its position (an override's signature).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      'no-unused-vars': 'off',
      // types/headlab.d.ts names each element's interface (HeadlabPathPatching extends its base with
      // its own state type) even where it adds no member: the name is the API.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
    },
  },
  {
    // An element names the properties its attribute table gives it in an interface merged with its
    // class (`interface HeadlabX extends AttributeProperties<typeof HeadlabX.attributes> {}`): the
    // base installs them on the prototype (widgets/base/attributes.ts installAttributes). The base
    // class types its `change` event the same way (an interface of addEventListener overloads).
    files: ['widgets/headlab-*.ts', 'widgets/base/headlab-element.ts'],
    rules: { '@typescript-eslint/no-unsafe-declaration-merging': 'off' },
  },
);
