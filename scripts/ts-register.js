'use strict';
// Runs TypeScript files directly (transpile only, as lab does), for scripts that must not wait for a build.
const Fs = require('node:fs');
const Typescript = require('typescript');

require.extensions['.ts'] = function (module, filename) {
    const source = Fs.readFileSync(filename, 'utf8');
    const { outputText } = Typescript.transpileModule(source, {
        fileName: filename,
        compilerOptions: { module: Typescript.ModuleKind.CommonJS, target: Typescript.ScriptTarget.ES2022, esModuleInterop: true, resolveJsonModule: true, inlineSourceMap: true }
    });
    module._compile(outputText, filename);
};
