'use strict';
// Runs TypeScript files directly (transpile only, as lab does), for scripts that must not wait for a build.
//
// Each file's JavaScript is kept in node_modules/.cache/ts-register, named by a digest of the compiler's version and
// options, the file's path and its source, so a changed file is transpiled again and an unchanged one is read back:
// loading the server this way took about 5 s transpiling and about 1 s from the cache (the stdio, SIGTERM, queue and
// multi-process tests start it in child processes). A file is written under a temporary name and renamed, so
// processes that start together never read half of one. `npm ci` empties the folder with the rest of node_modules.
const Crypto = require('node:crypto');
const Fs = require('node:fs');
const Path = require('node:path');

const OPTIONS = { esModuleInterop: true, resolveJsonModule: true, inlineSourceMap: true };       // and CommonJS, ES2022 (below)
const cacheDir = Path.join(__dirname, '..', 'node_modules', '.cache', 'ts-register');
const salt = `${require('typescript/package.json').version}\nCommonJS ES2022 ${JSON.stringify(OPTIONS)}\n`;
let Typescript = null;                                          // loaded on the first file not in the cache

function transpile(source, filename) {
    Typescript ??= require('typescript');
    const compilerOptions = { ...OPTIONS, module: Typescript.ModuleKind.CommonJS, target: Typescript.ScriptTarget.ES2022 };
    return Typescript.transpileModule(source, { fileName: filename, compilerOptions }).outputText;
}

function cached(source, filename) {
    const file = Path.join(cacheDir, `${Crypto.createHash('sha256').update(salt).update(filename).update('\0').update(source).digest('hex')}.js`);
    try {
        return Fs.readFileSync(file, 'utf8');
    }
    catch {
        const output = transpile(source, filename);
        try {
            Fs.mkdirSync(cacheDir, { recursive: true });
            const temporary = `${file}.${process.pid}.tmp`;
            Fs.writeFileSync(temporary, output);
            Fs.renameSync(temporary, file);
        }
        catch {
            // A cache that cannot be written (a read-only checkout) only costs the next process the transpiling.
        }

        return output;
    }
}

require.extensions['.ts'] = function (module, filename) {
    module._compile(cached(Fs.readFileSync(filename, 'utf8'), filename), filename);
};
