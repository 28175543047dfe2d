import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';
import * as Tls from 'node:tls';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Server } from '@hapi/hapi';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { CONTEXT_TOOLS, DEVELOPER_TOOLS, DIAGNOSTIC_TOOLS } from '../../lib/mcp/diagnostic-tools';
import { mcpDeployment } from '../../manifest';
import { caller, createKey, register, type TestUser } from '../helpers/api';
import { eventually } from '../helpers/apps';
import { fakeDns, type FakeDns } from '../helpers/fake-dns';
import { call, connect, MCP_PUBLIC_URL, mcpInstance, text, toolNames, type McpInstance } from '../helpers/mcp';
import { connectApp } from '../helpers/oauth';
import { DIAGNOSTICS_ON, testServer } from '../helpers/server';

// The diagnostic tool groups (issue 19) through the SDK's client against a running MCP server and API: each tool's
// success, its scope refusal and its limits; the flag combinations; the behaviour rules of mcp-server.md.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const NAMES = DIAGNOSTIC_TOOLS.map((tool) => tool.name).sort();
const SECRET = 'hunter2-value-never-shown';

/** A self-signed certificate for `hostname`, made with openssl. */
function certificate(hostname: string): { key: string; cert: string } {
    const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-cert-'));
    try {
        ChildProcess.execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${dir}/key.pem`, '-out', `${dir}/cert.pem`, '-days', '2',
            '-subj', `/CN=${hostname}`, '-addext', `subjectAltName=DNS:${hostname}`], { stdio: 'ignore' });
        return { key: Fs.readFileSync(`${dir}/key.pem`, 'utf8'), cert: Fs.readFileSync(`${dir}/cert.pem`, 'utf8') };
    }
    finally {
        Fs.rmSync(dir, { recursive: true, force: true });
    }
}

describe('diagnostic tools', () => {

    let instance: McpInstance;
    let server: Server;
    let owner: TestUser;
    let dns: FakeDns;
    let tls: Tls.Server;
    const clients: Client[] = [];
    const open = async (authorization: string) => {
        const client = await connect(`${instance.url}/mcp`, { authorization });
        clients.push(client);
        return client;
    };
    const rest = (method: string, url: string, authorization: string, payload?: object) => caller(() => server)(method, url, authorization, payload);
    const key = async (scopes: string[]) => open((await createKey(server, owner, scopes as never)).token);
    const settle = (app: string, id: string) => eventually(async () => (await rest('GET', `/v1/apps/${app}/deployments/${id}`, owner.session)).result,
        (deployment: { status: string }) => ['live', 'failed'].includes(deployment.status), `deployment ${id}`);
    const deploy = async (app: string) => {
        const made = await rest('POST', `/v1/apps/${app}/deployments/new`, owner.session, {});
        expect(made.statusCode).to.equal(201);
        return made.result as { id: string };
    };
    const writeLogs = (app: { id: string; projectId: string }, lines: Array<{ level: string; message: string; timestamp: string; stream?: string; deploymentId?: string }>) =>
        server.plugins['hostless-resources'].services.logs.writeMany(server.app.knex, lines.map((line) => ({
            resourceType: 'app', resourceId: app.id, projectId: app.projectId, stream: (line.stream ?? 'runtime') as never, level: line.level as never,
            message: line.message, timestamp: line.timestamp, deploymentId: line.deploymentId ?? null
        })));

    let app: { id: string; name: string; projectId: string };
    let first: { id: string };
    let second: { id: string };

    before(async () => {
        dns = await fakeDns();
        tls = Tls.createServer(certificate('a-ok.diag.test'), (socket) => socket.end());
        await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
        instance = await mcpInstance({
            ...DIAGNOSTICS_ON, runtime: { driver: 'records', recordsStepDelayMs: 100 }, dnsServers: [dns.address],
            outbound: { allowlist: ['a-ok.diag.test'] }, diagnosticsTlsPort: (tls.address() as { port: number }).port
        });
        server = instance.api.server;
        server.plugins['hostless-jobs'].queue.start();
        owner = await register(server, 'diag');
        const made = await rest('POST', '/v1/apps', owner.session, { name: 'diag-app', projectId: owner.projectId, environmentVariables: { API_TOKEN: SECRET, MODE: 'one', lower_name: '' } });
        expect(made.statusCode).to.equal(201);
        app = made.result as typeof app;
        first = await deploy(app.name);
        await settle(app.name, first.id);
        await rest('PATCH', `/v1/apps/${app.name}`, owner.session, { environmentVariables: { MODE: 'two', ADDED: 'x' }, instances: 2 });
        second = await deploy(app.name);
        await settle(app.name, second.id);
    });

    after(async () => {
        await Promise.all(clients.map((client) => client.close()));
        await instance?.stop();
        await dns?.stop();
        await new Promise((resolve) => tls?.close(resolve));
    });

    it('offers all 15 tools with both flags, to sessions, API keys and OAuth tokens alike', async () => {
        expect(NAMES).to.have.length(15);
        expect(DEVELOPER_TOOLS.map((tool) => tool.name)).to.equal(['deployments_list', 'deployments_get', 'logs_search', 'metrics_query', 'resource_health', 'project_overview', 'deployment_watch']);
        expect(CONTEXT_TOOLS).to.have.length(8);
        const oauth = await connectApp(server, owner);
        for (const authorization of [owner.session, (await createKey(server, owner, ['apps:read'])).token, `Bearer ${oauth.accessToken}`]) {
            const names = await toolNames(await open(authorization));
            expect(names.filter((name) => NAMES.includes(name))).to.equal(NAMES);
        }

        const viaOauth = await call(await open(`Bearer ${oauth.accessToken}`), 'deployments_list', { resourceType: 'app', resourceName: app.name });
        expect(viaOauth.isError, text(viaOauth)).to.not.be.true();
        expect(viaOauth.structuredContent.items.map((item: { id: string }) => item.id)).to.equal([second.id, first.id]);
    });

    it('deployments_list and deployments_get: pages of 25 by default and at most 100, deployments:read, a deployment of the named resource only', async () => {
        const client = await key(['deployments:read']);
        const listed = await call(client, 'deployments_list', { resourceType: 'app', resourceName: app.name, limit: 1 });
        expect(listed.structuredContent.items).to.have.length(1);
        expect(listed.structuredContent.next).to.be.a.string();
        expect(listed.structuredContent.items[0].configuration.environmentVariables).to.equal(['ADDED', 'API_TOKEN', 'MODE', 'lower_name']);
        expect(text(listed)).to.not.include(SECRET);
        const tooMany = await call(client, 'deployments_list', { resourceType: 'app', resourceName: app.name, limit: 101 });
        expect(text(tooMany)).to.include('Input validation error');
        const defaulted = await rest('GET', `/v1/diagnostics/apps/${app.name}/deployments?limit=100`, owner.session);
        expect(defaulted.statusCode).to.equal(200);
        expect((await rest('GET', `/v1/diagnostics/apps/${app.name}/deployments?limit=101`, owner.session)).statusCode).to.equal(400);

        const got = await call(client, 'deployments_get', { resourceType: 'app', resourceName: app.name, deploymentId: first.id });
        expect(got.structuredContent.deployment).to.include({ id: first.id, status: 'superseded' });
        const other = await rest('POST', '/v1/apps', owner.session, { name: 'diag-other', projectId: owner.projectId });
        const foreign = await call(client, 'deployments_get', { resourceType: 'app', resourceName: (other.result as { name: string }).name, deploymentId: first.id });
        expect(foreign.isError).to.be.true();
        expect(text(foreign)).to.include(`404 Not Found: Deployment not found (${first.id} is not a deployment of the app diag-other: a deployment id must belong to the named resource)`);

        const refused = await call(await key(['apps:read']), 'deployments_list', { resourceType: 'app', resourceName: app.name });
        expect(refused.isError).to.be.true();
        expect(text(refused)).to.include('deployments:read');
        expect(text(await call(await key(['apps:read']), 'deployments_get', { resourceType: 'app', resourceName: app.name, deploymentId: first.id }))).to.include('deployments:read');
        const database = await call(client, 'deployments_list', { resourceType: 'database', resourceName: 'anything' });
        expect(database.isError).to.not.be.true();
        expect(database.structuredContent.outcome).to.equal('unsupported');
    });

    it('logs_search: runtime logs filter by text, severity and time; at most 500 lines and 128 KiB; long messages cut and marked; logs:read', async () => {
        await writeLogs(app, [
            { level: 'info', message: 'request served', timestamp: '2026-01-01T10:00:00.000Z' },
            { level: 'error', message: 'database timeout', timestamp: '2026-01-01T10:01:00.000Z' },
            { level: 'warn', message: 'slow request', timestamp: '2026-01-01T10:02:00.000Z' },
            { level: 'error', message: 'request failed', timestamp: '2026-01-02T10:00:00.000Z' }
        ]);
        const client = await key(['logs:read']);
        const search = async (args: Record<string, unknown>) => (await call(client, 'logs_search', { resourceType: 'app', resourceName: app.name, ...args })).structuredContent;
        expect((await search({ q: 'request', level: 'warn' })).entries.map((line: { message: string }) => line.message)).to.equal(['request failed', 'slow request']);
        expect((await search({ level: 'error', until: '2026-01-01T23:00:00.000Z' })).entries.map((line: { message: string }) => line.message)).to.equal(['database timeout']);
        expect((await search({ since: '2026-01-02T00:00:00.000Z', q: 'request' })).entries).to.have.length(1);
        expect(text(await call(client, 'logs_search', { resourceType: 'app', resourceName: app.name, limit: 501 }))).to.include('Input validation error');

        const big = 'x'.repeat(40 * 1024);
        await writeLogs(app, Array.from({ length: 6 }, (_, i) => ({ level: 'info', message: `${i} ${big}`, timestamp: `2026-01-03T00:00:0${i}.000Z` })));
        const capped = await search({ since: '2026-01-03T00:00:00.000Z', until: '2026-01-04T00:00:00.000Z' });
        expect(capped.capped).to.be.true();
        expect(capped.entries).to.have.length(3);                   // 3 x 32 KiB fit in 128 KiB, a fourth does not
        expect(capped.entries.every((line: { truncated: boolean; message: string }) => line.truncated && line.message.length === 32 * 1024)).to.be.true();

        const refused = await call(await key(['apps:read', 'deployments:read']), 'logs_search', { resourceType: 'app', resourceName: app.name });
        expect(text(refused)).to.include('logs:read');
    });

    it('logs_search: build logs paginate by timestamp and refuse an unsupported filter', async () => {
        const client = await key(['logs:read']);
        const page = await call(client, 'logs_search', { resourceType: 'app', resourceName: app.name, deploymentId: second.id, limit: 2 });
        expect(page.structuredContent.order).to.equal('oldest');
        expect(page.structuredContent.entries.length as number).to.be.within(1, 2);           // a page ends at a whole millisecond
        expect(page.structuredContent.next).to.equal(page.structuredContent.entries.at(-1).timestamp);
        const next = await call(client, 'logs_search', { resourceType: 'app', resourceName: app.name, deploymentId: second.id, after: page.structuredContent.next, limit: 500 });
        expect(next.structuredContent.entries.length as number).to.be.above(0);
        expect(next.structuredContent.entries[0].timestamp > page.structuredContent.next).to.be.true();
        const refused = await call(client, 'logs_search', { resourceType: 'app', resourceName: app.name, deploymentId: second.id, q: 'queued' });
        expect(refused.isError).to.be.true();
        expect(text(refused)).to.include('"q" is not supported');

        // Lines that share a millisecond across a page's end are neither skipped nor repeated, paged 2 at a time.
        const at = (ms: number) => `2020-01-01T00:00:00.00${ms}Z`;
        const built = [[1, 'a'], [2, 'b'], [2, 'c'], [2, 'd'], [3, 'e'], [3, 'f'], [3, 'g'], [4, 'h']] as const;
        await writeLogs(app, built.map(([ms, message]) => ({ level: 'info', message, timestamp: at(ms), stream: 'build', deploymentId: first.id })));
        const seen: string[] = [];
        const pages: number[] = [];
        for (let after: string | undefined; ;) {
            const found = await call(client, 'logs_search', { resourceType: 'app', resourceName: app.name, deploymentId: first.id, limit: 2, ...(after ? { after } : {}) });
            const entries = found.structuredContent.entries.filter((line: { timestamp: string }) => line.timestamp < '2021');
            seen.push(...entries.map((line: { message: string }) => line.message));
            pages.push(entries.length);
            after = found.structuredContent.next;
            if (!after || after >= '2021') {
                break;
            }
        }

        expect(seen).to.equal(built.map(([, message]) => message));
        expect(pages.filter((count) => count > 0)).to.equal([1, 3, 3, 1]);           // a, then all of ms 2, then all of ms 3 (each more than the limit), then h
    });

    it('metrics_query and resource_usage_insights: unavailable where nothing measures, never an invented series; metrics:read', async () => {
        const client = await key(['metrics:read']);
        const series = await call(client, 'metrics_query', { resourceType: 'app', resourceName: app.name, metric: 'cpu-usage' });
        expect(series.structuredContent).to.include({ outcome: 'unavailable', source: 'unavailable', series: [] });
        const insights = await call(client, 'resource_usage_insights', { resourceType: 'app', resourceName: app.name });
        expect(insights.structuredContent.outcome).to.equal('unavailable');
        expect(insights.structuredContent.allocation).to.include({ plan: 'starter', instances: 2 });
        expect(text(await call(client, 'resource_usage_insights', { resourceType: 'app', resourceName: app.name, days: 32 }))).to.include('Input validation error');
        expect(text(await call(client, 'metrics_query', { resourceType: 'app', resourceName: app.name, metric: 'cpu-usage', since: '2026-01-01T00:00:00.000Z', until: '2026-03-01T00:00:00.000Z' }))).to.include('31 days');
        for (const name of ['metrics_query', 'resource_usage_insights']) {
            const refused = await call(await key(['apps:read']), name, { resourceType: 'app', resourceName: app.name, ...(name === 'metrics_query' ? { metric: 'cpu-usage' } : {}) });
            expect(text(refused), name).to.include('metrics:read');
        }
    });

    it('resource_health and resource_dependencies: from state and recorded links; the resource\'s read scope', async () => {
        const client = await key(['apps:read', 'databases:read']);
        const health = await call(client, 'resource_health', { resourceType: 'app', resourceName: app.name });
        expect(health.structuredContent).to.include({ outcome: 'ok', verdict: 'healthy', liveDeploymentId: second.id });
        const database = await rest('POST', '/v1/databases', owner.session, { name: 'diag-db', projectId: owner.projectId });
        expect(database.statusCode).to.equal(201);
        expect((await rest('PATCH', `/v1/apps/${app.name}`, owner.session, { databases: ['diag-db'] })).statusCode).to.equal(200);
        const uses = await call(client, 'resource_dependencies', { resourceType: 'app', resourceName: app.name });
        expect(uses.structuredContent.uses.map((item: { name: string }) => item.name)).to.equal(['diag-db']);
        const usedBy = await call(client, 'resource_dependencies', { resourceType: 'database', resourceName: 'diag-db' });
        expect(usedBy.structuredContent.usedBy).to.equal([{ type: 'app', name: app.name, linkedAt: usedBy.structuredContent.usedBy[0].linkedAt }]);
        expect((await call(client, 'resource_health', { resourceType: 'database', resourceName: 'diag-db' })).structuredContent.outcome).to.equal('ok');
        for (const name of ['resource_health', 'resource_dependencies']) {
            expect(text(await call(await key(['deployments:read']), name, { resourceType: 'app', resourceName: app.name })), name).to.include('apps:read');
        }
    });

    it('project_overview leaves out and names the sections outside the token\'s scopes; project_activity pages deployments (deployments:read)', async () => {
        const narrow = await call(await key(['projects:read', 'apps:read']), 'project_overview', { projectId: owner.projectId });
        expect(narrow.structuredContent.apps.map((item: { name: string }) => item.name)).to.include(app.name);
        expect(narrow.structuredContent.sites).to.not.exist();
        expect(narrow.structuredContent.omitted.map((item: { section: string }) => item.section)).to.equal(['sites', 'workers', 'cronJobs', 'databases', 'recentDeployments']);
        const full = await call(await open(owner.session), 'project_overview', { projectId: owner.projectId });
        expect(full.structuredContent.omitted).to.equal([]);
        expect(full.structuredContent.recentDeployments.length as number).to.be.above(1);
        expect(text(await call(await key(['apps:read']), 'project_overview', { projectId: owner.projectId }))).to.include('projects:read');

        const client = await key(['deployments:read']);
        const page = await call(client, 'project_activity', { projectId: owner.projectId, limit: 1 });
        expect(page.structuredContent.items).to.have.length(1);
        expect(page.structuredContent.items[0]).to.include({ id: second.id, resourceName: app.name, resourceType: 'app' });
        const rest2 = await call(client, 'project_activity', { projectId: owner.projectId, cursor: page.structuredContent.next });
        expect(rest2.structuredContent.items.map((item: { id: string }) => item.id)).to.equal([first.id]);
        expect(text(await call(client, 'project_activity', { projectId: owner.projectId, limit: 101 }))).to.include('Input validation error');
        expect(text(await call(await key(['apps:read']), 'project_activity', { projectId: owner.projectId }))).to.include('deployments:read');
    });

    it('deployment_watch returns the non-terminal state when its wait expires, and the settled one within 12 seconds', async () => {
        const client = await key(['deployments:read']);
        const started = await deploy(app.name);
        const early = await call(client, 'deployment_watch', { resourceType: 'app', resourceName: app.name, deploymentId: started.id, waitSeconds: 0 });
        expect(early.structuredContent.settled).to.be.false();
        expect(['queued', 'building', 'deploying']).to.include(early.structuredContent.status);
        const began = Date.now();
        const done = await call(client, 'deployment_watch', { resourceType: 'app', resourceName: app.name, deploymentId: started.id });
        expect(done.structuredContent).to.include({ settled: true, status: 'live' });
        expect(Date.now() - began).to.be.below(12_500);
        expect(text(await call(client, 'deployment_watch', { resourceType: 'app', resourceName: app.name, deploymentId: started.id, waitSeconds: 13 }))).to.include('Input validation error');
        expect(text(await call(await key(['apps:read']), 'deployment_watch', { resourceType: 'app', resourceName: app.name, deploymentId: started.id, waitSeconds: 0 }))).to.include('deployments:read');
    });

    it('deployment_compare and environment_compare: names and equality only, never values or fingerprints', async () => {
        const client = await key(['deployments:read', 'apps:read']);
        const compared = await call(client, 'deployment_compare', { resourceType: 'app', resourceName: app.name, deploymentId: first.id, otherDeploymentId: second.id });
        expect(compared.structuredContent.changed).to.equal([{ field: 'instances', first: 1, second: 2 }]);
        expect(compared.structuredContent.environmentVariables).to.equal({ outcome: 'ok', added: ['ADDED'], removed: [] });
        const env = await call(client, 'environment_compare', { resourceType: 'app', resourceName: app.name, deploymentId: first.id, otherDeploymentId: second.id });
        expect(env.structuredContent).to.include({ onlyInFirst: [], onlyInSecond: ['ADDED'], different: ['MODE'], same: ['API_TOKEN', 'lower_name'] });
        const againstCurrent = await call(client, 'environment_compare', { resourceType: 'app', resourceName: app.name, deploymentId: second.id });
        expect(againstCurrent.structuredContent.second.source).to.equal('current');
        for (const result of [compared, env, againstCurrent]) {
            expect(text(result)).to.not.include(SECRET);
            expect(text(result)).to.not.include('"two"');
        }

        const foreign = await rest('GET', `/v1/diagnostics/apps/diag-other/deployments/${first.id}/compare?otherDeploymentId=${second.id}`, owner.session);
        expect(foreign.statusCode).to.equal(404);
        expect(text(await call(await key(['apps:read']), 'deployment_compare', { resourceType: 'app', resourceName: app.name, deploymentId: first.id, otherDeploymentId: second.id }))).to.include('deployments:read');
        expect(text(await call(await key(['deployments:read']), 'environment_compare', { resourceType: 'app', resourceName: app.name, deploymentId: first.id }))).to.include('apps:read');
    });

    it('environment_audit reads the recorded snapshot of a deployment, and missing history stays unavailable', async () => {
        const client = await key(['apps:read']);
        const now = await call(client, 'environment_audit', { resourceType: 'app', resourceName: app.name });
        expect(now.structuredContent).to.include({ source: 'current', names: ['ADDED', 'API_TOKEN', 'MODE', 'lower_name'], secretLike: ['API_TOKEN'] });
        expect(now.structuredContent.findings).to.include([{ name: 'lower_name', finding: 'empty' }, { name: 'lower_name', finding: 'not_upper_case' }]);
        const then = await call(client, 'environment_audit', { resourceType: 'app', resourceName: app.name, deploymentId: first.id });
        expect(then.structuredContent).to.include({ source: 'deployment', deploymentId: first.id, names: ['API_TOKEN', 'MODE', 'lower_name'] });
        expect(text(then)).to.not.include(SECRET);

        const row = await server.app.knex('deployments').where('id', first.id).first<{ config: string }>('config');
        const { environment: _dropped, ...without } = JSON.parse(row.config) as Record<string, unknown>;
        await server.app.knex('deployments').where('id', first.id).update({ config: JSON.stringify(without) });
        try {
            const missing = await call(client, 'environment_audit', { resourceType: 'app', resourceName: app.name, deploymentId: first.id });
            expect(missing.structuredContent.outcome).to.equal('unavailable');
            expect(missing.structuredContent.names).to.not.exist();
            const compare = await call(await key(['apps:read']), 'environment_compare', { resourceType: 'app', resourceName: app.name, deploymentId: first.id });
            expect(compare.structuredContent.outcome).to.equal('unavailable');
            expect(compare.structuredContent.same).to.not.exist();
        }
        finally {
            await server.app.knex('deployments').where('id', first.id).update({ config: row.config });
        }

        expect(text(await call(await key(['deployments:read']), 'environment_audit', { resourceType: 'app', resourceName: app.name }))).to.include('apps:read');
    });

    it('deployment_preflight checks repository, limits and a service file without building or reserving anything', async () => {
        const client = await key(['apps:read']);
        const count = async () => Number(((await server.app.knex('deployments').count({ n: '*' }).first()) as { n: number | string }).n);
        const before = await count();
        const bad = await call(client, 'deployment_preflight', { resourceType: 'app', resourceName: app.name, instances: 50, serviceFile: 'version: 1\napp: {}' });
        expect(bad.structuredContent).to.include({ ready: false, built: false, reserved: false });
        const checks = Object.fromEntries(bad.structuredContent.checks.map((check: { check: string; outcome: string }) => [check.check, check.outcome]));
        expect(checks).to.equal({ repository: 'unavailable', limits: 'failed', serviceFile: 'failed' });
        const good = await call(client, 'deployment_preflight', {
            resourceType: 'app', resourceName: app.name, serviceFile: 'version: 1\napp:\n  name: diag-app\n  plan: starter\n  region: eu-west\n  instances: 1\n'
        });
        expect(good.structuredContent.ready, text(good)).to.be.true();
        expect(await count()).to.equal(before);
        expect(text(await call(await key(['deployments:read']), 'deployment_preflight', { resourceType: 'app', resourceName: app.name }))).to.include('apps:read');
    });

    it('domains_diagnose probes DNS and TLS of at most two verified hostnames, pins the address and refuses private ones', async () => {
        const client = await key(['apps:read']);
        const empty = await call(client, 'domains_diagnose', { resourceType: 'app', resourceName: app.name });
        expect(empty.structuredContent.outcome).to.equal('unavailable');
        for (const domain of ['a-ok.diag.test', 'b-private.diag.test', 'c-third.diag.test', 'd-pending.diag.test']) {
            expect((await rest('POST', `/v1/apps/${app.name}/custom-domains`, owner.session, { domain })).statusCode).to.equal(201);
        }

        await server.app.knex('domains').whereIn('hostname', ['a-ok.diag.test', 'b-private.diag.test', 'c-third.diag.test']).update({ status: 'verified' });
        dns.a.set('a-ok.diag.test', ['127.0.0.1']);
        dns.a.set('b-private.diag.test', ['10.1.2.3']);
        const answer = (await call(client, 'domains_diagnose', { resourceType: 'app', resourceName: app.name })).structuredContent;
        expect(answer.probed.map((item: { hostname: string }) => item.hostname)).to.equal(['a-ok.diag.test', 'b-private.diag.test']);
        expect(answer.notProbed).to.equal({ verified: 1, pending: 1 });
        const [ok, refused] = answer.probed;
        expect(ok.dns).to.include({ outcome: 'ok', pinned: '127.0.0.1' });
        expect(ok.tls).to.include({ matchesHostname: true, trusted: false, outcome: 'failed' });
        expect(ok.tls.daysLeft as number).to.be.within(0, 2);
        expect(refused.dns.outcome).to.equal('refused');
        expect(refused.dns.reason).to.include('private');
        expect(refused.tls.outcome).to.equal('unavailable');
        const worker = await call(client, 'domains_diagnose', { resourceType: 'worker', resourceName: 'any' });
        expect(worker.structuredContent.outcome).to.equal('unsupported');
        expect(text(await call(await key(['deployments:read']), 'domains_diagnose', { resourceType: 'app', resourceName: app.name }))).to.include('apps:read');
    });
});

describe('diagnostic flags', () => {

    it('off on both: no tool is offered and the API answers 404; on the MCP side only: tools answer unavailable', async () => {
        const off = await mcpInstance();
        const api = await testServer({}, { start: true });
        let mcpOnly: Server | null = null;
        const clients: Client[] = [];
        try {
            const user = await register(off.api.server, 'flags');
            const client = await connect(`${off.url}/mcp`, { authorization: user.session });
            clients.push(client);
            expect((await toolNames(client)).filter((name) => NAMES.includes(name))).to.equal([]);
            const refused = await off.api.server.inject({ method: 'GET', url: `/v1/diagnostics/projects/${user.projectId}/overview`, headers: { authorization: user.session } });
            expect(refused.statusCode).to.equal(404);
            expect((refused.result as { message: string }).message).to.include('MCP_DEVELOPER_TOOLS_ENABLED');

            mcpOnly = await mcpDeployment({ config: { ...api.config, mcpPublicUrl: MCP_PUBLIC_URL, ...DIAGNOSTICS_ON }, start: true, api: api.server, log: () => undefined });
            const other = await register(api.server, 'flags');
            const half = await connect(`${mcpOnly.info.uri}/mcp`, { authorization: other.session });
            clients.push(half);
            expect((await toolNames(half)).filter((name) => NAMES.includes(name))).to.equal(NAMES);
            const narrowed = await connect(`${mcpOnly.info.uri}/mcp`, { authorization: other.session, 'x-mcp-tools': 'context' });
            clients.push(narrowed);
            expect(await toolNames(narrowed)).to.equal(CONTEXT_TOOLS.map((tool) => tool.name).sort());
            for (const [name, args] of [['project_overview', { projectId: other.projectId }], ['project_activity', { projectId: other.projectId }]] as const) {
                const answer = await call(half, name, args);
                expect(answer.isError, name).to.not.be.true();
                expect(answer.structuredContent.outcome, name).to.equal('unavailable');
                expect(answer.structuredContent.reason, name).to.include(name === 'project_overview' ? 'MCP_DEVELOPER_TOOLS_ENABLED' : 'MCP_CONTEXT_TOOLS_ENABLED');
            }
        }
        finally {
            await Promise.all(clients.map((client) => client.close()));
            await mcpOnly?.stop();
            await api.stop();
            await off.stop();
        }
    });

    it('turns each group on alone', async () => {
        const developer = await mcpInstance({ mcpDeveloperToolsEnabled: true });
        try {
            const user = await register(developer.api.server, 'flags');
            const client = await connect(`${developer.url}/mcp`, { authorization: user.session });
            const names = await toolNames(client);
            await client.close();
            expect(names.filter((name) => NAMES.includes(name))).to.equal(DEVELOPER_TOOLS.map((tool) => tool.name).sort());
        }
        finally {
            await developer.stop();
        }
    });
});
