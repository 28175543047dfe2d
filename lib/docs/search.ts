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

    constructor(pages: readonly DocPage[]) {
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

    /** The best sections for a query, best first, at most three per page. */
    search(query: string, limit = 10): SearchHit[] {
        const terms = [...new Set(words(query).map(stem))];
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

        const perPage = new Map<string, number>();
        const hits: SearchHit[] = [];
        const ranked = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
        for (const [id, score] of ranked) {
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
}

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
