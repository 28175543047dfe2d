import porter2 from 'wink-porter2-stemmer';

import type { DocPage, DocSection } from './pages';

// Full-text search over the documentation, built once at start: an inverted index from stemmed (Porter2) terms to
// the sections holding them, ranked with BM25 over three fields of each section: its heading, its page's title and
// its text. Each field's term frequency is saturated on its own (the text's scaled down as the text grows longer than
// average), the fields are summed with their weights, and rare terms weigh more. A query word in a heading or the
// title is evidence of its own that no number of mentions in the text makes up for, so "deploy app" finds
// "Apps: Deployments" before a section that mentions deploying apps many times.

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
    length: number;                                             // the text's term count
}

/** A term's frequencies in one section, by field. */
interface Frequencies {
    heading: number;
    title: number;
    text: number;
}

const K1 = 1.2;
const B = 0.75;
const WEIGHTS: Readonly<Frequencies> = { heading: 3, title: 2, text: 1 };
const SNIPPET_CHARS = 180;
const PER_PAGE = 3;

const STOP_WORDS = new Set(('a an and are as at be but by can do does for from has have how i if in into is it its me my no not of on ' +
    'or so than that the their them then there these they this to was we what when where which who why will with you your').split(' '));

const WORD = /[\p{L}\p{N}]+/gu;

/** Lower-cased words of a text, without stop words. */
export function words(text: string): string[] {
    return (text.toLowerCase().match(WORD) ?? []).filter((word) => !STOP_WORDS.has(word));
}

/** English stems (Porter2): "deploy", "deployed" and "deployments" share "deploy"; "revoke" and "revoking" share "revok". */
export function stem(word: string): string {
    return porter2(word);
}

export class DocsIndex {
    private readonly entries: Entry[] = [];
    private readonly postings = new Map<string, Map<number, Frequencies>>();    // term -> entry -> frequencies
    private readonly averageLength: number;
    private readonly byPath: Map<string, DocPage>;

    constructor(private readonly pages: readonly DocPage[]) {
        this.byPath = new Map(pages.map((page) => [page.path, page]));
        for (const page of pages) {
            for (const section of page.sections) {
                const id = this.entries.length;
                // Every section is found under its page's title as well as its own heading ("Apps: Deployments");
                // the section before the first heading has the title as its heading.
                const fields: Array<[keyof Frequencies, string]> = [['heading', section.heading], ['title', section.anchor === null ? '' : page.title], ['text', section.text]];
                for (const [field, text] of fields) {
                    for (const word of words(text)) {
                        const term = stem(word);
                        const posting = this.postings.get(term) ?? new Map<number, Frequencies>();
                        const frequencies = posting.get(id) ?? { heading: 0, title: 0, text: 0 };
                        ++frequencies[field];
                        posting.set(id, frequencies);
                        this.postings.set(term, posting);
                    }
                }

                this.entries.push({ page, section, length: words(section.text).length });
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
            const { page, section } = this.entries[id];
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
            const { page, section } = this.entries[id];
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

    /** Sections holding any of the terms, by their fields' BM25 scores, best first. */
    private ranked(terms: readonly string[]): Array<[number, number]> {
        const scores = new Map<number, number>();
        for (const term of terms) {
            const posting = this.postings.get(term);
            if (!posting) {
                continue;
            }

            const idf = Math.log(1 + (this.entries.length - posting.size + 0.5) / (posting.size + 0.5));
            for (const [id, frequencies] of posting) {
                const textNorm = 1 - B + B * this.entries[id].length / this.averageLength;
                const saturated = (field: keyof Frequencies, norm = 1) => frequencies[field] * (K1 + 1) / (frequencies[field] + K1 * norm);
                const score = WEIGHTS.heading * saturated('heading') + WEIGHTS.title * saturated('title') + WEIGHTS.text * saturated('text', textNorm);
                scores.set(id, (scores.get(id) ?? 0) + idf * score);
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
        const index = match.index;
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
