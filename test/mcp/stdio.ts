import * as ChildProcess from 'node:child_process';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

import { caller, createKey, register, type TestUser } from '../helpers/api';
import { call, text } from '../helpers/mcp';
import { testServer, type TestServer } from '../helpers/server';

// stdio mode as a local MCP client runs it: a child process started with APP_TOKEN, speaking JSON-RPC on stdout and
// logging on stderr, acting on the API at API_BASE_URL with that credential.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const root = Path.join(__dirname, '..', '..');
const command = { command: process.execPath, args: ['-r', Path.join(root, 'scripts', 'ts-register.js'), Path.join(root, 'manifest', 'stdio.ts')], cwd: root };

/** Runs the stdio entry with no input, without blocking this process (its API answers the child). */
function runToEnd(env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
        const child = ChildProcess.spawn(command.command, command.args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
        const out = { stdout: '', stderr: '' };
        child.stdout.on('data', (chunk) => {
            out.stdout += chunk;
        });
        child.stderr.on('data', (chunk) => {
            out.stderr += chunk;
        });
        child.on('error', reject);
        child.on('close', (status) => resolve({ status, ...out }));
    });
}

describe('stdio mode', () => {

    let api: TestServer;
    let user: TestUser;

    before(async () => {
        api = await testServer({}, { start: true });
        user = await register(api.server, 'stdio');
    });

    after(async () => {
        await api?.stop();
    });

    const environment = (token: string): Record<string, string> => ({ PATH: process.env.PATH ?? '', APP_TOKEN: token, API_BASE_URL: api.server.info.uri, PUBLIC_URL: 'http://localhost:3000' });

    it('answers tools/list and runs a tool with an API key from APP_TOKEN, logging to stderr only', async () => {
        const key = await createKey(api.server, user, ['projects:read']);
        const transport = new StdioClientTransport({ ...command, env: environment(key.token), stderr: 'pipe' });
        let stderr = '';
        transport.stderr!.on('data', (chunk) => {
            stderr += chunk;
        });
        const client = new Client({ name: 'stdio-test', version: '0.0.0' });
        const errors: Error[] = [];
        client.onerror = (err) => errors.push(err);
        try {
            await client.connect(transport);
            const names = (await client.listTools()).tools.map((tool) => tool.name);
            expect(names).to.include(['projects_list', 'projects_get', 'docs_search', 'search', 'fetch']);
            expect(names.filter((name) => name.startsWith('apps_') || name.startsWith('sites_') || name.startsWith('workers_'))).to.equal([
                'apps_list', 'apps_get', 'apps_create', 'apps_patch', 'apps_delete', 'sites_list', 'sites_get', 'sites_create', 'sites_patch', 'sites_delete',
                'workers_list', 'workers_get', 'workers_create', 'workers_patch', 'workers_delete'
            ]);

            const listed = await call(client, 'projects_list');
            expect(listed.structuredContent.items.map((project: any) => project.id)).to.equal([user.projectId]);
            const refused = await call(client, 'projects_create', { name: 'Not with a key' });
            expect(text(refused)).to.include('403 Forbidden');

            const revoked = await caller(() => api.server)('DELETE', `/v1/users/me/api-keys/${key.id}`, user.session);
            expect(revoked.statusCode).to.equal(200);
            const afterRevoke = await call(client, 'projects_list');
            expect(afterRevoke.isError).to.be.true();
            expect(text(afterRevoke)).to.include('401 Unauthorized: API key has been revoked');
        }
        finally {
            await client.close();
        }

        expect(errors, 'every stdout line was JSON-RPC').to.equal([]);
        expect(stderr).to.match(/^Hostless MCP server on stdio: \d+ tools, acting as key key_\w+ on http:\/\/127\.0\.0\.1:\d+\n$/);
        expect(stderr).to.not.include(key.token);
    });

    it('works with a session token too', async () => {
        const client = new Client({ name: 'stdio-test', version: '0.0.0' });
        try {
            await client.connect(new StdioClientTransport({ ...command, env: environment(user.accessToken), stderr: 'ignore' }));
            const created = await call(client, 'projects_create', { name: 'From stdio' });
            expect(created.isError).to.not.be.true();
            expect((await caller(() => api.server)('GET', `/v1/projects/${created.structuredContent.id}`, user.session)).result.name).to.equal('From stdio');
        }
        finally {
            await client.close();
        }
    });

    it('offers an admin\'s session the admin tools with MCP_ADMIN_TOOLS_ENABLED, and the API refuses them once the flag is gone', async () => {
        const admin = await register(api.server, 'stdio-admin');
        await api.server.app.knex('users').where('id', admin.id).update({ admin_since: new Date().toISOString() });
        const client = new Client({ name: 'stdio-test', version: '0.0.0' });
        try {
            await client.connect(new StdioClientTransport({ ...command, env: { ...environment(admin.accessToken), MCP_ADMIN_TOOLS_ENABLED: 'true' }, stderr: 'ignore' }));
            expect((await client.listTools()).tools.map((tool) => tool.name)).to.include('admin_account_get');
            const answered = await call(client, 'admin_account_get', { userId: user.id });
            expect(answered.structuredContent.account.email).to.equal(user.email);

            await api.server.app.knex('users').where('id', admin.id).update({ admin_since: null });
            const refused = await call(client, 'admin_account_get', { userId: user.id });
            expect(refused.isError).to.be.true();
            expect(text(refused)).to.include('403');
            expect(text(refused)).to.not.include(user.email);
        }
        finally {
            await client.close();
        }

        const plain = new Client({ name: 'stdio-test', version: '0.0.0' });
        try {
            await plain.connect(new StdioClientTransport({ ...command, env: environment(user.accessToken), stderr: 'ignore' }));
            expect((await plain.listTools()).tools.map((tool) => tool.name).filter((name) => name.startsWith('admin_'))).to.equal([]);
        }
        finally {
            await plain.close();
        }
    });

    it('stops at once with a sentence on stderr, and nothing on stdout, when APP_TOKEN is missing or refused', async () => {
        for (const [token, message] of [['', /^APP_TOKEN is not set: stdio mode acts with your credential/], ['svk_0123456789_nope', /^APP_TOKEN was refused by the API at http:\/\/127\.0\.0\.1:\d+: Invalid API key\n$/]] as const) {
            const run = await runToEnd(environment(token));
            expect(run.status).to.equal(1);
            expect(run.stdout).to.equal('');
            expect(run.stderr).to.match(message);
        }
    });
});
