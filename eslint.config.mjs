// The lint step (`npm run lint`, part of `npm test`): typescript-eslint's type-checked recommendations as the base.
import tseslint from 'typescript-eslint';

export default tseslint.config(
    { ignores: ['dist/', 'node_modules/', 'data/', '.test-output/', 'plugins/dashboard/public/', 'scripts/*.js', 'eslint.config.mjs', '.labrc.js'] },
    {
        files: ['**/*.ts'],
        extends: [...tseslint.configs.recommendedTypeChecked],
        languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } }
    },
    // lab's coverage instruments the compiled JavaScript with the parser options this config gives a .js file.
    { files: ['**/*.js'], languageOptions: { parserOptions: { requireConfigFile: false } } }
);
