// Lookups by key, gathered over a turn of the event loop and read as one statement.
//
// A server under load reads a socket's request and runs it until its first wait; the requests whose bytes arrived
// together (about eight a turn at ten connections on the bench) all reach their credential's lookup in the same turn.
// Reading them with one statement at the end of the turn (setImmediate) costs one statement's fixed price instead of
// eight (SQLite: a read transaction, with its lock calls; PostgreSQL: a round trip), and the requests go on together
// through their next steps, which keeps the CPU's caches warm for each step. Every lookup reads the database after it
// was asked: nothing is kept from one statement to the next, so a revoked key is refused at the next request.
// A server that is not busy (the last turn asked for one lookup or none) reads the turn's first lookup at once, so a
// lone request waits for nothing.

/** `SELECT <key>, <columns> FROM <from> WHERE [<where> AND] <key> = ...`: what a batched lookup reads, the key first. */
export interface Lookup {
    key: string;                                                // the column matched
    columns: string;                                            // the columns handed back, in order
    from: string;                                               // a table or a join
    where?: string;                                             // a fixed condition without parameters
}

/** Reads the rows of many keys with one statement: each row's values in order, the key first. */
export type ReadKeys = (lookup: Lookup, keys: readonly string[]) => Promise<unknown[][]>;

interface Waiter {
    key: string;
    resolve: (rows: unknown[][]) => void;
    reject: (err: unknown) => void;
}

export class LookupBatches {
    private readonly waiting = new Map<Lookup, Waiter[]>();
    private asked = 0;                                          // lookups asked in this turn
    private busy = false;                                       // the last turn asked for more than one

    constructor(private readonly read: ReadKeys) { }

    /** The row of `key`, for a key unique in `lookup.from`: its values after the key, in the order of `lookup.columns`. */
    async get<T extends readonly unknown[]>(lookup: Lookup, key: string): Promise<T | undefined> {
        return (await this.rows(lookup, key))[0] as unknown as T | undefined;
    }

    /** Every row of `key`, each as its values after the key. */
    all<T extends readonly unknown[]>(lookup: Lookup, key: string): Promise<T[]> {
        return this.rows(lookup, key) as unknown as Promise<T[]>;
    }

    private rows(lookup: Lookup, key: string): Promise<unknown[][]> {
        return new Promise((resolve, reject) => {
            const waiter = { key, resolve, reject };
            if (++this.asked === 1) {
                setImmediate(() => this.flush());
                if (!this.busy) {
                    void this.answer(lookup, [waiter]);
                    return;
                }
            }

            let waiters = this.waiting.get(lookup);
            if (!waiters) {
                waiters = [];
                this.waiting.set(lookup, waiters);
            }

            waiters.push(waiter);
        });
    }

    private flush(): void {
        this.busy = this.asked > 1;
        this.asked = 0;
        const batches = [...this.waiting];
        this.waiting.clear();
        for (const [lookup, waiters] of batches) {
            void this.answer(lookup, waiters);
        }
    }

    private async answer(lookup: Lookup, waiters: readonly Waiter[]): Promise<void> {
        try {
            const keys = [...new Set(waiters.map((waiter) => waiter.key))];
            const rows = new Map<unknown, unknown[][]>();
            for (const row of await this.read(lookup, keys)) {
                const found = rows.get(row[0]);
                if (found) {
                    found.push(row.slice(1));
                }
                else {
                    rows.set(row[0], [row.slice(1)]);
                }
            }

            for (const waiter of waiters) {
                waiter.resolve(rows.get(waiter.key) ?? []);
            }
        }
        catch (err) {
            for (const waiter of waiters) {
                waiter.reject(err);
            }
        }
    }
}
