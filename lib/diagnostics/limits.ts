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

const size = (line: LogLine) => Buffer.byteLength(line.message) + 128;

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
