import * as Fs from 'node:fs';
import * as Path from 'node:path';

import { loadDocs, markdownFiles, type DocPage } from './pages';
import { DocsIndex } from './search';

// The documentation read and indexed once per process for each folder, not once per plugin that serves it: the
// dashboard's docs site and the MCP docs tools of one process share it, and so do the servers a process starts one
// after another (tests, embedding). Building the index (stemming every word of every page) is most of a server's
// start otherwise. A folder whose files changed since (a name, a size or a modification time) is read again.

export interface DocsCorpus {
    pages: readonly DocPage[];
    index: DocsIndex;
}

const corpora = new Map<string, { signature: string; corpus: DocsCorpus }>();

function signatureOf(dir: string): string {
    return markdownFiles(dir).sort().map((file) => {
        const stat = Fs.statSync(Path.join(dir, file));
        return `${file}\0${stat.size}\0${stat.mtimeMs}`;
    }).join('\n');
}

/** The pages of `dir` and their search index. */
export function docsCorpus(dir: string): DocsCorpus {
    const key = Path.resolve(dir);
    const signature = signatureOf(key);
    const known = corpora.get(key);
    if (known?.signature === signature) {
        return known.corpus;
    }

    const pages = loadDocs(key);
    const corpus = { pages, index: new DocsIndex(pages) };
    corpora.set(key, { signature, corpus });
    return corpus;
}
