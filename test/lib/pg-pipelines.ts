import * as Crypto from 'node:crypto';
import * as Net from 'node:net';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import knexFactory, { type Knex } from 'knex';

import { APPLICATION_NAME, PgPipelines } from '../../lib/db/pg-pipelines';
import { postgresUrl } from '../helpers/server';

// The request path's reads on PostgreSQL go over a few pipelined connections of their own (lib/db/pg-pipelines.ts):
// answers in order, a turn's statements on one connection in one write, another connection only when a turn finds
// every open one waiting, a failed connection dropped and replaced, nothing left open after close().
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const value = (n: number) => ({ name: 'pipelines_value', text: 'SELECT $1::int AS n', values: [n] });
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Asks each statement in a turn of its own, without waiting for the answers. */
async function turnByTurn<T>(asks: Array<() => Promise<T>>): Promise<T[]> {
    const answers: Array<Promise<T>> = [];
    for (const ask of asks) {
        answers.push(ask());
        answers[answers.length - 1].catch(() => undefined);     // awaited below, with the others
        await nextTurn();
    }

    return Promise.all(answers);
}

/** Counts the writes of the pipelines' sockets (one per system call) while `run` runs. */
async function countWrites<T>(run: () => Promise<T>): Promise<{ result: T; writes: number }> {
    const prototype = Net.Socket.prototype as unknown as { _writeGeneric: (...args: unknown[]) => unknown };
    const original = prototype._writeGeneric;
    let writes = 0;
    prototype._writeGeneric = function (this: Net.Socket, ...args: unknown[]) {
        writes += this.remotePort === Number(new URL(postgresUrl!).port || 5432) ? 1 : 0;
        return original.apply(this, args);
    };
    try {
        return { result: await run(), writes };
    }
    finally {
        prototype._writeGeneric = original;
    }
}

describe('pipelined PostgreSQL reads', { skip: !postgresUrl }, () => {
    let admin: Knex;
    let schema: string;

    before(async () => {
        admin = knexFactory({ client: 'pg', connection: postgresUrl! });
        schema = `pipes_${Crypto.randomBytes(6).toString('hex')}`;
        await admin.raw(`CREATE SCHEMA ${schema}`);
        await admin.raw(`CREATE TABLE ${schema}.words (id int PRIMARY KEY, word text NOT NULL)`);
        await admin.raw(`INSERT INTO ${schema}.words VALUES (1, 'one'), (2, 'two')`);
    });

    after(async () => {
        await admin.raw(`DROP SCHEMA ${schema} CASCADE`);
        await admin.destroy();
    });

    const open = (size: number) => new PgPipelines({ connectionString: postgresUrl!, searchPath: [schema], size });
    const backends = async (pid?: number) => Number((await admin.raw<{ rows: Array<{ n: string }> }>(
        'SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = ? AND (?::int IS NULL OR pid = ?::int)', [APPLICATION_NAME, pid ?? null, pid ?? null])).rows[0].n);

    it('answers each statement with its own rows, on one connection while one suffices and on at most its size under load', async () => {
        const pipelines = open(3);
        try {
            expect(await pipelines.rows(value(1))).to.equal([{ n: 1 }]);
            expect(await pipelines.rows(value(2))).to.equal([{ n: 2 }]);
            expect(pipelines.size).to.equal(1);                 // one statement at a time never needs a second

            // Statements asked turn after turn, each before the answers to the last came: a connection per turn up to the size.
            const answers = await turnByTurn(Array.from({ length: 60 }, (_, i) => () => pipelines.rows({ ...value(i), text: 'SELECT $1::int AS n FROM pg_sleep(0.005)', name: 'pipelines_slow_value' })));
            expect(answers).to.equal(Array.from({ length: 60 }, (_, i) => [{ n: i }]));
            expect(pipelines.size).to.equal(3);

            // The connections read the schema knex would (search_path), and rows come as values on request.
            expect(await pipelines.rows({ name: 'pipelines_words', text: 'SELECT id, word FROM words ORDER BY id', values: [], rowMode: 'array' })).to.equal([[1, 'one'], [2, 'two']]);
        }
        finally {
            await pipelines.close();
        }
    });

    it('fails the statements of a connection that ends, without failing the process, and opens another for the next', async () => {
        const pipelines = open(1);
        try {
            const [{ pid }] = await pipelines.rows({ name: 'pipelines_pid', text: 'SELECT pg_backend_pid() AS pid', values: [] }) as Array<{ pid: number }>;
            // The expectation holds the promise from the start: it may fail before the termination's own answer comes.
            const pending = expect(pipelines.rows({ name: 'pipelines_sleep', text: 'SELECT pg_sleep(30)', values: [] })).to.reject(/terminating connection/);
            await admin.raw('SELECT pg_terminate_backend(?)', [pid]);
            await pending;
            for (let waited = 0; pipelines.size && waited < 5000; waited += 10) {
                await new Promise((resolve) => setTimeout(resolve, 10));       // the socket's end follows the server's message
            }

            expect(pipelines.size).to.equal(0);

            const [again] = await pipelines.rows({ name: 'pipelines_pid', text: 'SELECT pg_backend_pid() AS pid', values: [] }) as Array<{ pid: number }>;
            expect(again.pid).to.not.equal(pid);
            expect(await pipelines.rows(value(7))).to.equal([{ n: 7 }]);
        }
        finally {
            await pipelines.close();
        }
    });

    it('sends the statements asked in one turn on one connection, in one write', async () => {
        const pipelines = open(3);
        try {
            await pipelines.rows(value(0));                     // connected and prepared: only the statements are counted
            const { result, writes } = await countWrites(() => Promise.all(Array.from({ length: 8 }, (_, i) => pipelines.rows(value(i)))));
            expect(result).to.equal(Array.from({ length: 8 }, (_, i) => [{ n: i }]));
            expect(writes).to.equal(1);
            expect(pipelines.size).to.equal(1);

            // Asked in turns of their own while the first waits, they go to other connections.
            const spread = await turnByTurn([0, 1, 2].map((i) => () => pipelines.rows({ ...value(i), text: 'SELECT $1::int AS n FROM pg_sleep(0.05)', name: 'pipelines_slow_value' })));
            expect(spread).to.equal([[{ n: 0 }], [{ n: 1 }], [{ n: 2 }]]);
            expect(pipelines.size).to.equal(3);
        }
        finally {
            await pipelines.close();
        }
    });

    it('fails a statement with the database\'s error and answers the statements sent behind it on the same connection', async () => {
        const pipelines = open(1);
        try {
            const results = await Promise.allSettled([
                pipelines.rows(value(1)),
                pipelines.rows({ name: 'pipelines_missing', text: 'SELECT * FROM no_such_table', values: [] }),
                pipelines.rows(value(3))
            ]);
            expect(results.map((result) => result.status)).to.equal(['fulfilled', 'rejected', 'fulfilled']);
            expect(((results[1] as PromiseRejectedResult).reason as Error).message).to.contain('no_such_table');
            expect((results[2] as PromiseFulfilledResult<unknown>).value).to.equal([{ n: 3 }]);
            expect(pipelines.size).to.equal(1);
        }
        finally {
            await pipelines.close();
        }
    });

    it('reads on after a migration changes what a prepared statement answers, on new connections, finishing the old ones\' statements', async () => {
        await admin.raw(`CREATE TABLE ${schema}.scores (id int PRIMARY KEY, score int NOT NULL)`);
        await admin.raw(`INSERT INTO ${schema}.scores VALUES (1, 10), (2, 20)`);
        const scores = { name: 'pipelines_scores', text: 'SELECT id, score FROM scores ORDER BY id', values: [] };
        const pipelines = open(2);
        try {
            // Both connections prepare the statement, then a rolling upgrade's migration changes the column's type.
            const slowScores = { name: 'pipelines_slow_scores', text: 'SELECT id, score FROM scores, pg_sleep(0.05) ORDER BY id', values: [] };
            await turnByTurn([() => pipelines.rows(slowScores), () => pipelines.rows(scores)]);    // the second on a new connection
            await pipelines.rows(scores);                       // on the first, with nothing pending on either
            expect(pipelines.size).to.equal(2);
            const pids = (await admin.raw<{ rows: Array<{ pid: number }> }>('SELECT pid FROM pg_stat_activity WHERE application_name = ?', [APPLICATION_NAME])).rows.map((row) => row.pid);
            await admin.raw(`ALTER TABLE ${schema}.scores ALTER COLUMN score TYPE text`);

            // PostgreSQL refuses a cached plan whose result type changed ("cached plan must not change result type"):
            // the statement runs again on a connection that never prepared it, and the stale ones are let go.
            // Four statements spread over both connections, a value read between them on one.
            const migrated = [{ id: 1, score: '10' }, { id: 2, score: '20' }];
            const answers = await turnByTurn([() => pipelines.rows(scores), () => pipelines.rows(scores), () => pipelines.rows(value(7)), () => pipelines.rows(scores), () => pipelines.rows(scores)]);
            expect(answers).to.equal([migrated, migrated, [{ n: 7 }], migrated, migrated]);
            expect(await pipelines.rows(scores)).to.equal(migrated);
            expect(pipelines.size).to.be.at.most(2);

            // The stale connections close once their statements are answered.
            const stale = async () => (await admin.raw<{ rows: Array<{ pid: number }> }>('SELECT pid FROM pg_stat_activity WHERE application_name = ?', [APPLICATION_NAME])).rows.filter((row) => pids.includes(row.pid));
            for (let wait = 0; wait < 50 && (await stale()).length; ++wait) {
                await new Promise((resolve) => setTimeout(resolve, 20));
            }

            expect(await stale()).to.equal([]);
        }
        finally {
            await pipelines.close();
        }
    });

    it('keeps one plan for a statement whose plans for the values given look cheaper (a page over small projects in a large table), unless asked to plan per value', async () => {
        // 100,000 rows: five projects of 20, five of about 20,000. PostgreSQL's own choice plans this statement anew
        // at every run for two small projects (pg_prepared_statements counted 8 custom plans of 8 runs).
        await admin.raw(`CREATE TABLE ${schema}.items (project text NOT NULL, created text NOT NULL, id text NOT NULL, j text)`);
        await admin.raw(`INSERT INTO ${schema}.items SELECT CASE WHEN g <= 100 THEN 'small' || (g % 5) ELSE 'big' || (g % 5) END, lpad(g::text, 10, '0'), 'i' || g, repeat('x', 300) FROM generate_series(1, 100000) g`);
        await admin.raw(`CREATE INDEX ON ${schema}.items (project, created, id)`);
        await admin.raw(`ANALYZE ${schema}.items`);
        const arm = (n: number) => `(SELECT created, id, j FROM items WHERE project = $${n} AND (created, id) < ($3, $4) ORDER BY created DESC, id DESC LIMIT $5)`;
        const page = { name: 'pipelines_page', text: `${arm(1)} UNION ALL ${arm(2)} ORDER BY created DESC, id DESC LIMIT $5`, values: ['small1', 'small2', '9999', '', 51], rowMode: 'array' as const };
        const pipelines = open(1);
        try {
            for (let run = 0; run < 8; ++run) {
                expect(await pipelines.rows(page)).to.have.length(40);
            }

            // pg_prepared_statements is the session's own: asked on the one connection that ran the page.
            const plans = await pipelines.rows({ name: 'pipelines_plans', text: 'SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE name = $1', values: [page.name], rowMode: 'array' });
            expect(plans).to.equal([[8, 0]]);
        }
        finally {
            await pipelines.close();
        }

        // Opened with plansPerValue, the connections leave PostgreSQL its own choice: plans for the values given.
        const perValue = new PgPipelines({ connectionString: postgresUrl!, searchPath: [schema], size: 1, plansPerValue: true });
        try {
            for (let run = 0; run < 8; ++run) {
                expect(await perValue.rows(page)).to.have.length(40);
            }

            const [[generic, custom]] = await perValue.rows({ name: 'pipelines_plans', text: 'SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE name = $1', values: [page.name], rowMode: 'array' }) as number[][];
            expect(custom, `${generic} generic`).to.be.at.least(5);
        }
        finally {
            await perValue.close();
        }
    });

    it('leaves no connection open after close(), and refuses statements from then on', async () => {
        const pipelines = open(2);
        const [{ pid }] = await pipelines.rows({ name: 'pipelines_pid', text: 'SELECT pg_backend_pid() AS pid', values: [] }) as Array<{ pid: number }>;
        expect(await backends(pid)).to.equal(1);
        await pipelines.close();
        expect(await backends(pid)).to.equal(0);
        await expect(pipelines.rows(value(1))).to.reject('The database reader is closed');
    });

    it('fails the statements waiting on a connection that cannot be opened', async () => {
        const url = new URL(postgresUrl!);
        url.pathname = `/no_such_database_${Crypto.randomBytes(4).toString('hex')}`;
        const pipelines = new PgPipelines({ connectionString: url.toString(), searchPath: [], size: 2 });
        try {
            await expect(pipelines.rows(value(1))).to.reject(/does not exist/);
            expect(pipelines.size).to.equal(0);
        }
        finally {
            await pipelines.close();
        }
    });
});
