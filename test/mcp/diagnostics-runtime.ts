import * as Fs from 'node:fs';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { FAILURE_TAIL_BYTES } from '../../lib/diagnostics/limits';
import { caller, createKey, register, type TestUser } from '../helpers/api';
import { call, connect, mcpInstance, type McpInstance } from '../helpers/mcp';
import { processRuntime, testRepository, type TestRepository } from '../helpers/runtime';
import { DIAGNOSTICS_ON } from '../helpers/server';

// deployment_watch with the process runtime: a build that fails for real comes back `failed` with the end of its
// log (at most 4 KiB), for a caller holding logs:read; without logs:read the tail is left out and says why.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('deployment_watch with the process runtime', () => {

    let instance: McpInstance;
    let owner: TestUser;
    let repo: TestRepository;
    const clients: Client[] = [];

    before(async () => {
        repo = testRepository({ 'server.js': 'require("http").createServer((q, s) => s.end("ok")).listen(process.env.PORT);' });
        instance = await mcpInstance({ ...DIAGNOSTICS_ON, runtime: processRuntime() });
        instance.api.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.api.server, 'watcher');
    });

    after(async () => {
        await Promise.all(clients.map((client) => client.close()));
        await instance?.stop();
        Fs.rmSync(`${instance.api.config.dataDir}-runtime`, { recursive: true, force: true });
        repo?.remove();
    });

    it('returns failed with at most 4 KiB of the failing log tail, and leaves the tail out without logs:read', async () => {
        const rest = caller(() => instance.api.server);
        // A build that prints far more than 4 KiB and then fails: only the end of it may come back.
        const buildCommand = 'for i in $(seq 1 400); do echo "compiling module $i of 400"; done; echo "error: missing dependency left-pad" >&2; exit 2';
        const made = await rest('POST', '/v1/apps', owner.session, { name: 'fails-to-build', projectId: owner.projectId, repository: { provider: 'git', repo: repo.url, branch: 'main' }, buildCommand, startCommand: 'node server.js' });
        expect(made.statusCode, made.payload).to.equal(201);
        const started = await rest('POST', '/v1/apps/fails-to-build/deployments/new', owner.session, {});
        expect(started.statusCode).to.equal(201);

        const client = await connect(`${instance.url}/mcp`, { authorization: (await createKey(instance.api.server, owner, ['deployments:read', 'logs:read'])).token });
        clients.push(client);
        let answer = await call(client, 'deployment_watch', { resourceType: 'app', resourceName: 'fails-to-build', deploymentId: started.result.id });
        for (let tries = 0; !answer.structuredContent.settled && tries < 5; ++tries) {
            answer = await call(client, 'deployment_watch', { resourceType: 'app', resourceName: 'fails-to-build', deploymentId: started.result.id });
        }

        expect(answer.structuredContent).to.include({ settled: true, status: 'failed' });
        const tail = answer.structuredContent.logTail as string;
        expect(Buffer.byteLength(tail)).to.be.within(1, FAILURE_TAIL_BYTES);
        expect(tail).to.include('missing dependency left-pad');
        expect(tail).to.not.include('compiling module 1 of 400\n');

        const narrow = await connect(`${instance.url}/mcp`, { authorization: (await createKey(instance.api.server, owner, ['deployments:read'])).token });
        clients.push(narrow);
        const without = await call(narrow, 'deployment_watch', { resourceType: 'app', resourceName: 'fails-to-build', deploymentId: started.result.id, waitSeconds: 0 });
        expect(without.structuredContent).to.include({ status: 'failed', logTail: null, logTailOmitted: 'the log tail needs logs:read' });
    });

    it('reports a metrics store that fails apart from a series without samples', async () => {
        const client = await connect(`${instance.url}/mcp`, { authorization: (await createKey(instance.api.server, owner, ['metrics:read'])).token });
        clients.push(client);
        const args = { resourceType: 'app', resourceName: 'fails-to-build', metric: 'cpu-usage' };
        const empty = await call(client, 'metrics_query', args);
        expect(empty.structuredContent).to.include({ outcome: 'ok', source: 'measured', series: [], samples: 0 });
        const knex = instance.api.server.app.knex;
        await knex.schema.renameTable('metric_points', 'metric_points_away');
        try {
            const broken = await call(client, 'metrics_query', args);
            expect(broken.isError).to.not.be.true();
            expect(broken.structuredContent).to.include({ outcome: 'inconclusive', source: 'error', series: null });
            const insights = await call(client, 'resource_usage_insights', { resourceType: 'app', resourceName: 'fails-to-build' });
            expect(insights.structuredContent.cpu.source).to.equal('error');
        }
        finally {
            await knex.schema.renameTable('metric_points_away', 'metric_points');
        }
    });
});
