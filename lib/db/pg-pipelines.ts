import type { Writable } from 'node:stream';

import pg from 'pg';

// The reads of the request path (lib/db/fast-reader.ts) on PostgreSQL go over a few connections of their own, each in
// node-postgres's pipeline mode: a statement is written as soon as it is asked, without waiting for the answers to
// those sent before it on the same connection, and the answers come back in order. Against a connection taken from
// knex's pool for each statement, that saves the pool's bookkeeping and the waits for a free connection: at ten
// concurrent requests on a lists server of 1,000 apps the page of 50 cost 341 to 390 us of CPU against 415 to 541;
// on the bench's full data the difference was within the noise (docs/performance.md).
//
// The statements asked in one turn of the event loop go to one connection and leave in one write: the first picks the
// connection with the fewest answers pending (another is opened, up to `size`, only when every open one is waiting
// for an answer, so an idle server holds one); the others follow it, and its socket is corked until the turn ends.
// Under load a turn carries several requests' statements (credentials, sources, pages), and a write to a loopback
// socket also runs the receiving side's network work on the writer's CPU: one write a turn instead of one a statement
// took the PostgreSQL page of 50 from about two writes a request to 0.7 (docs/performance.md). A slow statement (a
// log search) delays the statements of its turn and those sent behind it on its connection; later turns go to
// another. Each statement is its own implicit transaction (node-postgres ends each with Sync): it reads what was
// committed when it runs, as on the pool. A connection that fails or ends is dropped, its pending statements fail
// with its error, and the next statement opens a new one.
//
// Statements are prepared once per connection, and keep one plan (plan_cache_mode = force_generic_plan) until a change
// of schema or statistics makes PostgreSQL plan them again. Left to itself, PostgreSQL plans a prepared statement anew
// at each run while the plans for the values given look cheaper than the plan for any value: on the bench's data, the
// page of 50 across five projects of 20 apps each, in a table of 100,000 apps, cost PostgreSQL 665 to 708 us of CPU a
// run, against 245 with its plan kept (test/lib/pg-pipelines.ts builds such a table and counts the plans). The
// request path's keyed reads and keyset pages have one good plan (an index in order, a limit) for every value. A
// statement whose best plan depends on its values, a text search of log lines, goes to connections opened with
// `plansPerValue`, which leave PostgreSQL its own choice: with the plan kept, a search for a word in no line of an app
// of 1,000,000 lines walked them all (1.7 s) instead of asking the trigram index (7 ms).
//
// The connections live as long as the server. When a migration (a rolling upgrade's) changes the type of what a
// prepared statement answers, PostgreSQL refuses to run its cached plan ("cached plan must not change result type"):
// that connection is retired (it takes no more statements and closes once those sent to it are answered) and the
// statement runs again on another, a new one at the latest.

export interface PipelineOptions {
    connectionString: string;
    searchPath: readonly string[];                              // set on each connection, as knex sets it on its own
    size: number;                                               // the most connections held
    plansPerValue?: boolean;                                    // leave PostgreSQL its own choice of plan at each run (see above)
}

export interface PipelinedQuery {
    name: string;                                               // a named prepared statement: parsed once per connection
    text: string;
    values: unknown[];
    rowMode?: 'array';
}

interface Pipe {
    client: pg.Client;
    ready: Promise<pg.Client>;
    pending: number;                                            // statements sent and not yet answered
    corked: boolean;                                            // its socket holds this turn's statements
}

const CONNECT_TIMEOUT_MS = 10_000;                              // as knex's acquireConnectionTimeout
export const APPLICATION_NAME = 'hostless-reader';              // how pg_stat_activity names these connections

export class PgPipelines {
    private readonly pipes: Pipe[] = [];
    private readonly retired = new Set<Pipe>();                 // take no more statements; closed once none is pending
    private turn: Pipe | null = null;                           // where this turn's statements go
    private closed = false;

    constructor(private readonly options: PipelineOptions) { }

    /** The connections open now (tests). */
    get size(): number {
        return this.pipes.length;
    }

    async rows(query: PipelinedQuery): Promise<unknown[]> {
        // Each stale connection is retired once, so after at most `size` of them the statement goes to a new one.
        for (let attempt = 0; ; ++attempt) {
            const pipe = this.pick();
            try {
                return await this.send(pipe, query);
            }
            catch (err) {
                if (!stalePlan(err) || attempt >= this.options.size) {
                    throw err;
                }

                this.retire(pipe);
            }
        }
    }

    async close(): Promise<void> {
        this.closed = true;
        const pipes = [...this.pipes.splice(0), ...this.retired];
        this.retired.clear();
        await Promise.all(pipes.map((pipe) => pipe.client.end().catch(() => undefined)));
    }

    private async send(pipe: Pipe, query: PipelinedQuery): Promise<unknown[]> {
        ++pipe.pending;
        try {
            const client = await pipe.ready;
            cork(pipe);
            return (await client.query(query as pg.QueryConfig)).rows as unknown[];
        }
        finally {
            --pipe.pending;
            if (!pipe.pending && this.retired.delete(pipe)) {
                pipe.client.end().catch(() => undefined);
            }
        }
    }

    /** Takes a connection out of use: at once when nothing is pending on it, else after its last answer (send()). */
    private retire(pipe: Pipe): void {
        const index = this.pipes.indexOf(pipe);
        if (index === -1) {
            return;                                             // retired already, or dropped when it ended
        }

        this.pipes.splice(index, 1);
        this.leave(pipe);
        if (pipe.pending) {
            this.retired.add(pipe);                             // send() closes it after the last answer
        }
        else {
            pipe.client.end().catch(() => undefined);
        }
    }

    private pick(): Pipe {
        if (this.closed) {
            throw new Error('The database reader is closed');
        }

        if (this.turn) {
            return this.turn;
        }

        let best: Pipe | null = null;
        for (const pipe of this.pipes) {
            if (!best || pipe.pending < best.pending) {
                best = pipe;
            }
        }

        const pipe = !best || best.pending > 0 && this.pipes.length < this.options.size ? this.open() : best;
        this.turn = pipe;
        setImmediate(() => this.leave(pipe));
        return pipe;
    }

    /** Ends the turn on a connection (the turn is over, or the connection is out of use). */
    private leave(pipe: Pipe): void {
        if (this.turn === pipe) {
            this.turn = null;
        }
    }

    private open(): Pipe {
        const client = new pg.Client({
            connectionString: this.options.connectionString,
            application_name: APPLICATION_NAME,
            connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
            pipeline: true
        });
        const pipe: Pipe = { client, pending: 0, corked: false, ready: null as unknown as Promise<pg.Client> };
        const drop = () => {
            const index = this.pipes.indexOf(pipe);
            if (index !== -1) {
                this.pipes.splice(index, 1);
            }

            this.leave(pipe);
        };

        // An idle connection's failure (the server restarted) is an 'error' event: without a listener it would end the
        // process. The statements pending on it fail with it; the next one opens another connection.
        client.on('error', drop);
        client.on('end', drop);
        pipe.ready = client.connect().then(async () => {
            if (this.options.searchPath.length) {
                await client.query(`SET search_path TO ${this.options.searchPath.map((name) => pg.escapeIdentifier(name)).join(', ')}`);
            }

            if (!this.options.plansPerValue) {
                await client.query('SET plan_cache_mode = force_generic_plan');
            }

            return client;
        });
        pipe.ready.catch(() => {
            drop();
            client.end().catch(() => undefined);
        });
        this.pipes.push(pipe);
        return pipe;
    }
}

/**
 * Holds a connection's writes until the end of this turn, so the statements asked in it leave in one write
 * (node-postgres corks the socket around each statement's messages; an outer cork holds them all).
 */
function cork(pipe: Pipe): void {
    const socket = (pipe.client as unknown as { connection?: { stream?: Writable } }).connection?.stream;
    if (pipe.corked || typeof socket?.cork !== 'function') {
        return;
    }

    socket.cork();
    pipe.corked = true;
    setImmediate(() => {
        pipe.corked = false;
        socket.uncork();
    });
}

/** PostgreSQL's refusal of a prepared statement whose result type changed since it was prepared (SQLSTATE 0A000). */
function stalePlan(err: unknown): boolean {
    const { code, message } = err as { code?: unknown; message?: unknown };
    return code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change result type');
}
