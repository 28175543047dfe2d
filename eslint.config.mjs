// The lint step (`npm run lint`, part of `npm test` and CI): typescript-eslint's type-checked recommendations as the
// base, for every TypeScript file of the project.
import tseslint from 'typescript-eslint';

export default tseslint.config(
    { ignores: ['dist/', 'node_modules/', 'data/', '.test-output/', 'plugins/dashboard/public/', 'scripts/*.js', 'eslint.config.mjs', '.labrc.js'] },
    {
        files: ['**/*.ts'],
        extends: [...tseslint.configs.recommendedTypeChecked],
        languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
        linterOptions: { reportUnusedDisableDirectives: 'error' },
        rules: {
            // hapi handlers, MCP tool handlers and the methods of async interfaces are async by contract, awaiting or not.
            '@typescript-eslint/require-await': 'off',
            // `_name` marks a parameter a signature requires and the body does not use.
            '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }]
        }
    },
    {
        // Tests and benches read responses as hapi types them (`res.result: any`) and JSON bodies of their own making;
        // the assertions, not the types, check those shapes; their fake servers echo query strings hapi leaves untyped.
        // The rest of the base applies to them in full.
        files: ['test/**/*.ts', 'bench/**/*.ts'],
        rules: {
            '@typescript-eslint/no-base-to-string': 'off',
            '@typescript-eslint/restrict-template-expressions': 'off',
            '@typescript-eslint/no-explicit-any': 'off',
            '@typescript-eslint/no-unsafe-argument': 'off',
            '@typescript-eslint/no-unsafe-assignment': 'off',
            '@typescript-eslint/no-unsafe-call': 'off',
            '@typescript-eslint/no-unsafe-member-access': 'off',
            '@typescript-eslint/no-unsafe-return': 'off'
        }
    },
    // lab's coverage instruments the compiled JavaScript with the parser options this config gives a .js file.
    { files: ['**/*.js'], languageOptions: { parserOptions: { requireConfigFile: false } } }
);
