import { PassThrough } from 'node:stream';

import * as Boom from '@hapi/boom';
import type { Request } from '@hapi/hapi';

import type { Answer, Api } from './api';

// The live tail of a resource's logs: server-sent events from a dashboard route that polls the logs API with the
// session's access token as it is at each poll, so a sign-out (or a session ended anywhere) ends the stream within
// one poll. A stream lasts at most `maxMs`; a session holds at most `perSession` at once; the server's shutdown
// ends them all before it waits for requests. Streams never refresh a token: an expired one ends the stream with
// `expired`, and the browser's reconnect (a new request) refreshes it.

export interface LiveTailOptions {
    pollMs: number;
    maxMs: number;
    perSession: number;
}

export const LIVE_TAIL_DEFAULTS: LiveTailOptions = { pollMs: 2000, maxMs: 5 * 60_000, perSession: 3 };

export interface LogLine {
    timestamp: string;
    stream: string;
    level: string;
    message: string;
    deploymentId?: string | null;
}

export type EndReason = 'signed-out' | 'expired' | 'time-limit' | 'shutdown' | 'error';

const PAGE = 500;

const keyOf = (line: LogLine) => `${line.timestamp}\u0000${line.stream}\u0000${line.message}`;

class Tail {
    readonly stream = new PassThrough();
    private timer: NodeJS.Timeout | null = null;
    private ended = false;
    private readonly deadline: number;
    private since: string | null = null;
    private seen = new Set<string>();                           // lines already sent at the newest timestamp

    constructor(private readonly options: LiveTailOptions, private readonly api: Api, private readonly url: string, private readonly onEnd: () => void) {
        this.deadline = Date.now() + options.maxMs;
    }

    start(first: LogLine[]): void {
        this.send(first);
        this.stream.write(`retry: ${this.options.pollMs}\n\n`);
        this.schedule();
    }

    end(reason: EndReason): void {
        if (this.ended) {
            return;
        }

        this.ended = true;
        if (this.timer) {
            clearTimeout(this.timer);
        }

        this.stream.end(`event: end\ndata: ${reason}\n\n`);
        this.onEnd();
    }

    /** The browser went away: nothing more to write. */
    abandon(): void {
        if (!this.ended) {
            this.ended = true;
            if (this.timer) {
                clearTimeout(this.timer);
            }

            this.stream.end();
            this.onEnd();
        }
    }

    private schedule(): void {
        const wait = Math.min(this.options.pollMs, this.deadline - Date.now());
        this.timer = setTimeout(() => void this.poll(), Math.max(wait, 0));
    }

    private async poll(): Promise<void> {
        this.timer = null;
        if (this.ended) {
            return;
        }

        if (Date.now() >= this.deadline) {
            return this.end('time-limit');
        }

        let answer: Answer<LogLine[]> | 'expired' | 'ended';
        try {
            answer = await this.api.callAsIs<LogLine[]>('GET', `${this.url}&limit=${PAGE}${this.since ? `&since=${encodeURIComponent(this.since)}` : ''}`);
        }
        catch {
            return this.end('error');
        }

        if (this.ended) {
            return;
        }

        if (answer === 'ended') {
            return this.end('signed-out');
        }

        if (answer === 'expired') {
            return this.end('expired');
        }

        if (answer.status !== 200 || !Array.isArray(answer.body)) {
            return this.end('error');
        }

        this.send(answer.body);
        this.stream.write(': poll\n\n');                       // a comment: keeps proxies from closing a quiet stream
        this.schedule();
    }

    /** Lines the API answered newest first, sent oldest first, each once. */
    private send(lines: LogLine[]): void {
        const fresh = [...lines].reverse().filter((line) => !this.seen.has(keyOf(line)) && (!this.since || line.timestamp >= this.since));
        for (const line of fresh) {
            if (line.timestamp !== this.since) {
                this.since = line.timestamp;
                this.seen = new Set();
            }

            this.seen.add(keyOf(line));
            const data = JSON.stringify({ timestamp: line.timestamp, stream: line.stream, level: line.level, message: line.message });
            this.stream.write(`event: line\ndata: ${data}\n\n`);
        }
    }
}

export class LiveTails {
    private readonly bySession = new Map<string, Set<Tail>>();

    constructor(readonly options: LiveTailOptions) { }

    /** Opens a stream for a session, or refuses (429) a session that already holds the most it may. */
    open(request: Request, sessionId: string, api: Api, url: string, first: LogLine[]): PassThrough {
        const held = this.bySession.get(sessionId) ?? new Set<Tail>();
        if (held.size >= this.options.perSession) {
            throw Boom.tooManyRequests(`A session may hold ${this.options.perSession} live tails at once: close one (another tab) and try again.`);
        }

        const tail: Tail = new Tail(this.options, api, url, () => {
            held.delete(tail);
            if (!held.size) {
                this.bySession.delete(sessionId);
            }
        });
        held.add(tail);
        this.bySession.set(sessionId, held);
        request.raw.res.once('close', () => tail.abandon());
        tail.start(first);
        return tail.stream;
    }

    count(): number {
        return [...this.bySession.values()].reduce((sum, tails) => sum + tails.size, 0);
    }

    closeAll(reason: EndReason): void {
        for (const tails of [...this.bySession.values()]) {
            for (const tail of [...tails]) {
                tail.end(reason);
            }
        }
    }
}
