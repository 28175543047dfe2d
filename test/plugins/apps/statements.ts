import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { READER_QUERY } from '../../../lib/db/fast-reader';
import { caller, createKey, register, type TestUser } from '../../helpers/api';
import { createApp } from '../../helpers/apps';
import { testServer, type TestServer } from '../../helpers/server';

// The access pipeline loads the rows a route names, and handlers act on what it loaded: a read by name costs the
// credential and the resource, and a nested route one statement per level. Every connection is counted: knex's and
// the prepared-statement reader's.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('statements per request', () => {

    let instance: TestServer;
    let owner: TestUser;
    let token: string;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
        owner = await register(instance.server, 'owner');
        token = (await createKey(instance.server, owner, ['apps:read', 'cron-jobs:read', 'deployments:read'])).token;
    });

    after(async () => {
        await instance?.stop();
    });

    /** The statements one request runs, on every connection. */
    const statements = async (url: string): Promise<string[]> => {
        await call('GET', url, token);                          // the key's once-a-minute lastUsedAt write happens here
        await new Promise((resolve) => setTimeout(resolve, 50));
        const seen: string[] = [];
        const { knex } = instance.server.app;
        const onQuery = (query: { sql: string; options?: object }) => {
            if (!(query.options && (query.options as typeof READER_QUERY).fastReader)) {
                seen.push(query.sql);
            }
        };

        const reader = instance.server.plugins['hostless-auth'].reader;
        knex.on('query', onQuery);
        reader.observe((sql) => seen.push(sql));
        try {
            const res = await call('GET', url, token);
            expect(res.statusCode, res.payload).to.equal(200);
        }
        finally {
            knex.removeListener('query', onQuery);
            reader.observe(null);
        }

        return seen;
    };

    it('runs two statements for GET /v1/apps/{appName}: the credential and the app', async () => {
        const app = await createApp(instance.server, owner);
        const seen = await statements(`/v1/apps/${app.name}`);
        expect(seen, seen.join('\n')).to.have.length(2);
        expect(seen[0]).to.contain('FROM api_keys');
        expect(seen[1]).to.contain('FROM apps');
    });

    it('runs one statement per level of a nested route, and one for the credential', async () => {
        const app = await createApp(instance.server, owner);
        const job = await call('POST', `/v1/apps/${app.name}/cron-jobs`, owner.session, { name: 'nightly', schedule: '0 3 * * *', command: 'node n.js' });
        const run = await call('POST', `/v1/apps/${app.name}/cron-jobs/${job.result.id}/run`, owner.session);
        const seen = await statements(`/v1/apps/${app.name}/cron-jobs/${job.result.id}/runs/${run.result.id}`);
        expect(seen, seen.join('\n')).to.have.length(4);
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        expect(await statements(`/v1/apps/${app.name}/deployments/${deployment.result.id}`)).to.have.length(3);
    });
});
