import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Knex } from 'knex';

import { dialect } from '../../../lib/db/knex';
import { newId } from '../../../lib/ids';
import { caller, createKey, register } from '../../helpers/api';
import { testServer, type TestServer } from '../../helpers/server';

// GET /v1/invoices walks one index per project the caller owns or administers, merged: no full scan, no sort of
// the caller's invoices, on a table of 6,000 (as test/lib/list-plans.ts checks the other lists).
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('the invoice list\'s plan', () => {

    let instance: TestServer;

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    it('walks indexes in order', async () => {
        const knex = instance.server.app.knex;
        const call = caller(() => instance.server);
        const owner = await register(instance.server, 'payer');
        const projects = [owner.projectId];
        for (const name of ['One', 'Two']) {
            projects.push((await call('POST', '/v1/projects', owner.session, { name })).result.id as string);
        }

        const rows = Array.from({ length: 6000 }, (_, i) => {
            const at = new Date(Date.UTC(2020, 0, 1) + i * 3_600_000).toISOString();
            return {
                id: newId('inv'), project_id: projects[i % 3], account_id: owner.id, period_start: `x${i}`, period_end: 'x', currency: 'USD', lines: '[]',
                subtotal: 0, credit_applied: 0, total: 0, status: 'open', test: false, created_at: at, updated_at: at
            };
        });
        for (let i = 0; i < rows.length; i += 200) {
            await knex('invoices').insert(rows.slice(i, i + 200));
        }

        await knex.raw('ANALYZE');
        const token = (await createKey(instance.server, owner, ['billing:read'])).token;
        const seen: Array<{ sql: string; params: readonly unknown[] }> = [];
        const reader = instance.server.plugins['hostless-auth'].reader;
        reader.observe((sql, params) => seen.push({ sql, params }));
        try {
            const first = await call('GET', '/v1/invoices?limit=20', token);
            expect(first.result).to.have.length(20);
            const next = /<([^>]+)>/.exec(first.headers.link as string)![1];
            const second = await call('GET', next, token);
            expect(second.result[0].createdAt < first.result[19].createdAt).to.be.true();
        }
        finally {
            reader.observe(null);
        }

        const statements = seen.filter((statement) => statement.sql.includes('invoices'));
        expect(statements).to.have.length(2);
        for (const statement of statements) {
            expect(await problems(knex, statement.sql, statement.params), statement.sql).to.equal([]);
        }
    });
});

async function problems(knex: Knex, sql: string, params: readonly unknown[]): Promise<string[]> {
    if (dialect(knex) === 'postgres') {
        const result = await knex.raw(`EXPLAIN (FORMAT JSON) ${sql}`, params as Knex.RawBinding[]);
        const found: string[] = [];
        const bound = sql.split(' UNION ALL ').length * 101;
        const walk = (node: Record<string, any>) => {
            const input = node.Plans?.[0]?.['Plan Rows'] ?? 0;
            if (node['Node Type'] === 'Seq Scan' || (/Sort$/.test(node['Node Type']) && input > bound)) {
                found.push(`${node['Node Type']} (${input} rows)`);
            }

            for (const child of node.Plans ?? []) {
                walk(child);
            }
        };

        walk(result.rows[0]['QUERY PLAN'][0].Plan);
        return found;
    }

    const plan: Array<{ detail: string }> = await knex.raw(`EXPLAIN QUERY PLAN ${sql}`, params as Knex.RawBinding[]);
    return plan.map((step) => step.detail).filter((detail) => /TEMP B-TREE/.test(detail) || /^SCAN (?!.*VIRTUAL TABLE)/.test(detail));
}
