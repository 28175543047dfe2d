import type { DocPage, DocSection } from './pages';

// Full-text search over the documentation, built once at start: an inverted index from stemmed terms to the
// sections holding them, ranked with BM25 (term frequency saturated, rare terms weigh more, long sections weigh
// less). Headings count three times and page titles twice, so a section about a term outranks one mentioning it.

export interface SnippetPart {
    text: string;
    match: boolean;                                             // a query term: the page highlights it
}

export interface SearchHit {
    page: DocPage;
    section: DocSection;
    score: number;
    snippet: SnippetPart[];
}

/** A page, scored by its best section: what the MCP documentation tools return. */
export interface PageHit {
    page: DocPage;
    score: number;
    snippet: string;
}

interface Entry {
    page: DocPage;
    section: DocSection;
    length: number;                                             // weighted term count
}

const K1 = 1.2;
const B = 0.75;
const HEADING_WEIGHT = 3;
const TITLE_WEIGHT = 2;
const SNIPPET_CHARS = 180;
const PER_PAGE = 3;

const STOP_WORDS = new Set(('a an and are as at be but by can do does for from has have how i if in into is it its me my no not of on ' +
    'or so than that the their them then there these they this to was we what when where which who why will with you your').split(' '));

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased words of a text, without stop words. */
export function words(text: string): string[] {
    return (text.toLowerCase().match(WORD) ?? []).filter((word) => !STOP_WORDS.has(word));
}

/** A light suffix stripper: "revoke", "revoked", "revokes" and "revoking" share the term "revok". */
export function stem(word: string): string {
    for (const suffix of ['ing', 'es', 'ed', 's', 'e']) {
        const rest = word.slice(0, -suffix.length);
        if (word.endsWith(suffix) && rest.length >= 3 && !(suffix === 's' && rest.endsWith('s'))) {
            return rest;
        }
    }

    return word;
}

export class DocsIndex {
    private readonly entries: Entry[] = [];
    private readonly postings = new Map<string, Map<number, number>>();    // term -> entry -> weighted frequency
    private readonly averageLength: number;
    private readonly byPath: Map<string, DocPage>;

    constructor(private readonly pages: readonly DocPage[]) {
        this.byPath = new Map(pages.map((page) => [page.path, page]));
        for (const page of pages) {
            for (const section of page.sections) {
                const id = this.entries.length;
                const weighted: Array<[string, number]> = [
                    ...words(section.heading).map((word) => [word, HEADING_WEIGHT] as [string, number]),
                    ...words(section.text).map((word) => [word, 1] as [string, number]),
                    ...(section.anchor === null ? words(page.title).map((word) => [word, TITLE_WEIGHT] as [string, number]) : [])
                ];
                let length = 0;
                for (const [word, weight] of weighted) {
                    const term = stem(word);
                    const posting = this.postings.get(term) ?? new Map<number, number>();
                    posting.set(id, (posting.get(id) ?? 0) + weight);
                    this.postings.set(term, posting);
                    length += weight;
                }

                this.entries.push({ page, section, length });
            }
        }

        this.averageLength = this.entries.reduce((sum, entry) => sum + entry.length, 0) / Math.max(1, this.entries.length);
    }

    /** Every page, in the order they were loaded (the index first, then as the index links them). */
    list(): readonly DocPage[] {
        return this.pages;
    }

    /** A page by its path; a leading slash and a `.md`/`.mdx` extension are tolerated. */
    get(path: string): DocPage | null {
        return this.byPath.get(path.trim().replace(/^\/+|\/+$/g, '').replace(/\.mdx?$/, '')) ?? null;
    }

    /** The best sections for a query, best first, at most three per page. */
    search(query: string, limit = 10): SearchHit[] {
        const terms = queryTerms(query);
        const perPage = new Map<string, number>();
        const hits: SearchHit[] = [];
        for (const [id, score] of this.ranked(terms)) {
            const { page, section } = this.entries[id]!;
            const shown = perPage.get(page.path) ?? 0;
            if (shown >= PER_PAGE) {
                continue;
            }

            perPage.set(page.path, shown + 1);
            hits.push({ page, section, score, snippet: snippet(section.text || section.heading, terms) });
            if (hits.length >= limit) {
                break;
            }
        }

        return hits;
    }

    /** The best pages for a query, best first, each scored by its best section, with that section's passage. */
    searchPages(query: string, limit = 10): PageHit[] {
        const terms = queryTerms(query);
        const seen = new Set<string>();
        const hits: PageHit[] = [];
        for (const [id, score] of this.ranked(terms)) {
            const { page, section } = this.entries[id]!;
            if (seen.has(page.path)) {
                continue;
            }

            seen.add(page.path);
            const text = snippet(section.text || section.heading, terms).map((part) => part.text).join('');
            const passage = section.heading && section.heading !== page.title && section.text ? `${section.heading}: ${text}` : text;
            hits.push({ page, score: Math.round(score * 1000) / 1000, snippet: passage });
            if (hits.length >= limit) {
                break;
            }
        }

        return hits;
    }

    /** Sections holding any of the terms, by BM25 score, best first. */
    private ranked(terms: readonly string[]): Array<[number, number]> {
        const scores = new Map<number, number>();
        for (const term of terms) {
            const posting = this.postings.get(term);
            if (!posting) {
                continue;
            }

            const idf = Math.log(1 + (this.entries.length - posting.size + 0.5) / (posting.size + 0.5));
            for (const [id, frequency] of posting) {
                const entry = this.entries[id]!;
                const norm = frequency + K1 * (1 - B + B * entry.length / this.averageLength);
                scores.set(id, (scores.get(id) ?? 0) + idf * frequency * (K1 + 1) / norm);
            }
        }

        return [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    }
}

const queryTerms = (query: string) => [...new Set(words(query).map(stem))];

/** A window of the text around the first query term, cut at word boundaries, with every query term marked. */
export function snippet(text: string, terms: readonly string[]): SnippetPart[] {
    const wanted = new Set(terms);
    const found = [...text.matchAll(WORD)].filter((match) => wanted.has(stem(match[0].toLowerCase())));
    const first = found[0]?.index ?? 0;
    let start = Math.max(0, first - SNIPPET_CHARS / 3);
    if (start > 0) {
        const space = text.indexOf(' ', start);
        start = space >= 0 && space < first ? space + 1 : start;
    }

    let end = Math.min(text.length, start + SNIPPET_CHARS);
    if (end < text.length) {
        const space = text.lastIndexOf(' ', end);
        end = space > start ? space : end;
    }

    const parts: SnippetPart[] = start > 0 ? [{ text: '… ', match: false }] : [];
    let at = start;
    for (const match of found) {
        const index = match.index!;
        if (index < start || index + match[0].length > end) {
            continue;
        }

        if (index > at) {
            parts.push({ text: text.slice(at, index), match: false });
        }

        parts.push({ text: match[0], match: true });
        at = index + match[0].length;
    }

    if (end > at) {
        parts.push({ text: text.slice(at, end), match: false });
    }

    if (end < text.length) {
        parts.push({ text: ' …', match: false });
    }

    return parts;
}
