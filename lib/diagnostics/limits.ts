import type { LogLine } from '../resources/logs';

// The limits of mcp-server.md "Limits" for the diagnostic routes and tools, in one place.
export const LIST_DEFAULT = 25;
export const LIST_MAX = 100;
export const LOGS_DEFAULT = 100;
export const LOGS_MAX = 500;
export const LOGS_MAX_BYTES = 128 * 1024;
export const WATCH_MAX_SECONDS = 12;
export const WATCH_BUDGET_MS = 15_000;
export const FAILURE_TAIL_BYTES = 4 * 1024;
export const DOMAINS_MAX = 2;

/** The outcomes a diagnostic states instead of guessing. */
export type Outcome = 'ok' | 'unavailable' | 'unsupported' | 'inconclusive';

const LINE_OVERHEAD = 128;                                      // what a line costs beside its message
const size = (line: LogLine) => Buffer.byteLength(line.message) + LINE_OVERHEAD;

/** Lines up to LOGS_MAX_BYTES in all (messages are already cut at 32 KiB and marked): `capped` says more were left out. */
export function capLogs(lines: readonly LogLine[]): { entries: LogLine[]; capped: boolean } {
    const entries: LogLine[] = [];
    let bytes = 0;
    for (const line of lines) {
        bytes += size(line);
        if (bytes > LOGS_MAX_BYTES) {
            return { entries, capped: true };
        }

        entries.push(line);
    }

    return { entries, capped: false };
}

/** The end of a log, at most `max` bytes of its messages joined by newlines (cut at a line start where it can be). */
export function tail(lines: readonly LogLine[], max = FAILURE_TAIL_BYTES): string {
    const text = lines.map((line) => `${line.timestamp} ${line.level} ${line.message}`).join('\n');
    const bytes = Buffer.from(text);
    if (bytes.length <= max) {
        return text;
    }

    const cut = bytes.subarray(bytes.length - max).toString('utf8').replace(/^\uFFFD+/, '');
    const newline = cut.indexOf('\n');
    return newline >= 0 && newline < cut.length - 1 ? cut.slice(newline + 1) : cut;
}

/**
 * A page of lines, oldest first, that the next page continues with `after` = `next` (the lines after that timestamp)
 * without skipping a line: a page never ends inside a timestamp that may go on. When the last timestamp of a full page
 * may go on, its lines are left to the next page; when every line of the page has that one timestamp, the page holds
 * every line of it (more than `limit`, up to LOGS_MAX_BYTES). `read(since, until, limit)` reads the lines from `since`.
 */
export async function timestampPage(read: (since: Date | undefined, until: Date | undefined, limit: number) => Promise<LogLine[]>, after: Date | undefined, limit: number) {
    const since = after ? new Date(after.getTime() + 1) : undefined;
    let { entries, capped } = capLogs(await read(since, undefined, limit));
    const full = capped || entries.length === limit;
    if (full && entries.length) {
        const last = entries[entries.length - 1].timestamp;
        const cut = entries.findIndex((line) => line.timestamp === last);
        if (cut > 0) {
            entries = entries.slice(0, cut);
        }
        else {
            ({ entries, capped } = capLogs(await read(new Date(last), new Date(last), LOGS_MAX_BYTES / LINE_OVERHEAD + 1)));
        }
    }

    return { entries, capped, next: full && entries.length ? entries[entries.length - 1].timestamp : null };
}
