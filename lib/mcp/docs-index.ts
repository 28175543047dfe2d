import * as Fs from 'node:fs';
import * as Path from 'node:path';

// The documentation folder, read once and indexed for ranked search: Okapi BM25 over tokenized page text, with words
// of the title and headings counted more than body words, plus a bonus for query words in the title (in a small
// corpus the words of a page's subject appear on most pages, where BM25 alone barely tells them apart). Page paths
// are file paths without the extension (`index` for index.md, `guides/deploy` for guides/deploy.md), as on the
// public docs site.

export interface DocPage {
    path: string;
    title: string;
    text: string;
    url: string;
}

export interface SearchHit {
    page: DocPage;
    score: number;
    snippet: string;
}

const EXTENSIONS = /\.mdx?$/;
const K1 = 1.2;
const B = 0.75;
const TITLE_WEIGHT = 3;
const HEADING_WEIGHT = 2;
const TITLE_BONUS = 1;                                          // added in proportion to the query words in the title
const SNIPPET_LENGTH = 240;

const STOPWORDS = new Set(('a an and are as at be by can do does for from has have how i if in into is it its of on or ' +
    'so that the their then there these this to was what when where which who why will with you your').split(' '));

/** Lowercase words of two or more letters or digits, plurals folded (`scopes` -> `scope`), common words dropped. */
export function tokenize(text: string): string[] {
    const words = text.normalize('NFKD').toLowerCase().match(/[a-z0-9]+/g) ?? [];
    return words.filter((word) => word.length > 1 && !STOPWORDS.has(word)).map(stem);
}

// A light suffix stripper: plurals and -ed/-ing forms meet their stem (`revoked`, `revoking`, `revoke` -> `revok`).
function stem(word: string): string {
    let out = word;
    if (out.length > 4 && out.endsWith('ies')) {
        out = `${out.slice(0, -3)}y`;
    }
    else if (out.length > 3 && out.endsWith('s') && !/(ss|us|is)$/.test(out)) {
        out = out.slice(0, -1);
    }

    const suffix = out.length > 5 && out.endsWith('ing') ? 3 : out.length > 4 && out.endsWith('ed') ? 2 : 0;
    if (suffix) {
        out = out.slice(0, -suffix);
        out = /([^aeiouls])\1$/.test(out) ? out.slice(0, -1) : out;                  // embedding -> embed
    }

    return out.length > 4 && out.endsWith('e') ? out.slice(0, -1) : out;
}

interface Entry {
    page: DocPage;
    terms: Map<string, number>;
    title: Set<string>;
    length: number;
}

export class DocsIndex {
    private readonly entries: Entry[];
    private readonly byPath: Map<string, DocPage>;
    private readonly documentFrequency = new Map<string, number>();
    private readonly averageLength: number;

    constructor(pages: readonly DocPage[]) {
        this.entries = pages.map((page) => weigh(page));
        this.byPath = new Map(pages.map((page) => [page.path, page]));
        for (const entry of this.entries) {
            for (const term of entry.terms.keys()) {
                this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
            }
        }

        this.averageLength = this.entries.reduce((sum, entry) => sum + entry.length, 0) / Math.max(1, this.entries.length);
    }

    /** Every page, index first, then by path. */
    list(): DocPage[] {
        return [...this.byPath.values()].sort((a, b) => a.path === 'index' ? -1 : b.path === 'index' ? 1 : a.path.localeCompare(b.path));
    }

    /** A page by its path; a leading slash or a trailing `.md`/`.mdx` is tolerated. */
    get(path: string): DocPage | null {
        return this.byPath.get(normalizePath(path)) ?? null;
    }

    search(query: string, limit = 10): SearchHit[] {
        const terms = [...new Set(tokenize(query))];
        const total = this.entries.length;
        const hits: SearchHit[] = [];
        for (const entry of this.entries) {
            let score = 0;
            for (const term of terms) {
                const frequency = entry.terms.get(term);
                if (!frequency) {
                    continue;
                }

                const documents = this.documentFrequency.get(term)!;
                const idf = Math.log(1 + (total - documents + 0.5) / (documents + 0.5));
                score += idf * frequency * (K1 + 1) / (frequency + K1 * (1 - B + B * entry.length / this.averageLength));
            }

            if (score > 0) {
                score += TITLE_BONUS * terms.filter((term) => entry.title.has(term)).length / terms.length;
                hits.push({ page: entry.page, score: Math.round(score * 1000) / 1000, snippet: snippet(entry.page.text, terms) });
            }
        }

        return hits.sort((a, b) => b.score - a.score || a.page.path.localeCompare(b.page.path)).slice(0, limit);
    }
}

export function normalizePath(path: string): string {
    return path.trim().replace(/^\/+/, '').replace(/\/+$/, '').replace(EXTENSIONS, '');
}

function weigh(page: DocPage): Entry {
    const terms = new Map<string, number>();
    let length = 0;
    const add = (text: string, weight: number) => {
        for (const term of tokenize(text)) {
            terms.set(term, (terms.get(term) ?? 0) + weight);
            length += weight;
        }
    };

    add(page.title, TITLE_WEIGHT);
    for (const line of page.text.split('\n')) {
        add(line.replace(/\]\([^)]*\)/g, ']'), /^#{2,6} /.test(line) ? HEADING_WEIGHT : 1);      // link targets are not words
    }

    return { page, terms, title: new Set(tokenize(page.title)), length };
}

/** The paragraph that holds the most query terms, cut to a few lines around the first of them. */
function snippet(text: string, terms: readonly string[]): string {
    const paragraphs = text.split(/\n\s*\n/)
        .filter((paragraph) => !/^\s*#{1,6} [^\n]*\s*$/.test(paragraph))
        .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
        .filter(Boolean);
    let best = paragraphs[0] ?? '';
    let bestCount = 0;
    for (const paragraph of paragraphs) {
        const words = new Set(tokenize(paragraph));
        const count = terms.filter((term) => words.has(term)).length;
        if (count > bestCount) {
            best = paragraph;
            bestCount = count;
        }
    }

    if (best.length <= SNIPPET_LENGTH) {
        return best;
    }

    const lower = best.toLowerCase();
    const positions = terms.map((term) => lower.indexOf(term)).filter((at) => at >= 0);
    const first = positions.length ? Math.min(...positions) : 0;
    const start = first > SNIPPET_LENGTH / 3 ? best.indexOf(' ', first - SNIPPET_LENGTH / 3) + 1 : 0;
    const space = best.lastIndexOf(' ', start + SNIPPET_LENGTH);
    const end = start + SNIPPET_LENGTH >= best.length ? best.length : space > start ? space : start + SNIPPET_LENGTH;
    return `${start > 0 ? '...' : ''}${best.slice(start, end)}${end < best.length ? '...' : ''}`;
}

/** Reads every .md/.mdx file under `dir`; `baseUrl` is the public docs site (`<PUBLIC_URL>/docs`). */
export function loadDocs(dir: string, baseUrl: string): DocsIndex {
    const pages: DocPage[] = [];
    const walk = (folder: string) => {
        for (const entry of Fs.readdirSync(folder, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
            const full = Path.join(folder, entry.name);
            if (entry.isDirectory()) {
                walk(full);
            }
            else if (EXTENSIONS.test(entry.name)) {
                const path = Path.relative(dir, full).split(Path.sep).join('/').replace(EXTENSIONS, '');
                const text = Fs.readFileSync(full, 'utf8');
                const title = /^# +(.+)$/m.exec(text)?.[1]?.trim() ?? path;
                pages.push({ path, title, text, url: `${baseUrl.replace(/\/+$/, '')}/${path}` });
            }
        }
    };

    walk(dir);
    return new DocsIndex(pages);
}
