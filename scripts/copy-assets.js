'use strict';
// Part of `npm run build`: tsc emits only JavaScript, so the files the server reads at run time beside its code (the
// docs pages, the dashboard's templates, stylesheet and script) are copied into dist/ at the same relative paths.
const Fs = require('node:fs');
const Path = require('node:path');

const root = Path.join(__dirname, '..');
const dist = Path.join(root, 'dist');

for (const folder of ['docs', 'plugins']) {
    Fs.cpSync(Path.join(root, folder), Path.join(dist, folder), {
        recursive: true,
        filter: (source) => Fs.statSync(source).isDirectory() || !source.endsWith('.ts')
    });
}
