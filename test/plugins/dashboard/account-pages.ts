import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import * as Jose from 'jose';

import { agentConfigs } from '../../../plugins/dashboard/routes/account-pages';
import { chart } from '../../../plugins/dashboard/charts';
import { caller, PASSWORD, register, type TestUser } from '../../helpers/api';
import { pageText, Visitor } from '../../helpers/dashboard';
import { testServer, type TestServer } from '../../helpers/server';
import { sshPublicKey } from '../../helpers/ssh';

// The account pages (profile, password, sessions, security trail, SSH keys, AI agent setup), key presets, and the
// metric charts drawn on the server.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('dashboard account pages', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer({ publicUrl: 'https://hostless.example.com', mcpPublicUrl: 'https://mcp.hostless.example.com' });
    });

    after(async () => {
        await instance?.stop();
    });

    const signIn = async (user: TestUser) => {
        const visitor = new Visitor(instance.server);
        await visitor.get('/dashboard/sign-in');
        await visitor.post('/dashboard/sign-in', { email: user.email, password: user.password });
        return visitor;
    };

    it('changes the name, and the password with the current one', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        await visitor.get('/dashboard/account');
        expect((await visitor.post('/dashboard/account/profile', { name: 'Grace Hopper' })).statusCode).to.equal(302);
        const page = await visitor.get('/dashboard/account');
        expect(pageText(page.payload)).to.contain('Your name is saved.');
        expect(page.payload).to.contain('value="Grace Hopper"');

        const wrong = await visitor.post('/dashboard/account/password', { currentPassword: 'not the password', password: 'another long passphrase' });
        expect(wrong.statusCode).to.equal(400);
        expect(pageText(wrong.payload)).to.contain('That did not work.');
        await visitor.get('/dashboard/account');
        expect((await visitor.post('/dashboard/account/password', { currentPassword: PASSWORD, password: 'another long passphrase' })).statusCode).to.equal(302);
        expect((await call('POST', '/v1/auth/login', undefined, { email: user.email, password: 'another long passphrase' })).statusCode).to.equal(200);
    });

    it('lists the sessions, signs one out, then signs out everywhere', async () => {
        const user = await register(instance.server);
        const here = await signIn(user);
        const there = await signIn(user);
        const page = await here.get('/dashboard/account/sessions');
        const ids = [...page.payload.matchAll(/action="\/dashboard\/account\/sessions\/(ses_[0-9A-Za-z]+)\/revoke"/g)].map((match) => match[1]);
        expect(ids).to.have.length(3);                             // the API session of register, and two sign-ins
        expect(pageText(page.payload)).to.contain('this browser');

        const hereId = /(ses_[0-9A-Za-z]+)<\/code> <span class="badge-muted">this browser/.exec(page.payload)![1];
        const thereId = ids.find((id) => id !== hereId && id !== (Jose.decodeJwt(user.accessToken) as { sid: string }).sid)!;
        expect((await here.post(`/dashboard/account/sessions/${thereId}/revoke`)).statusCode).to.equal(302);
        const ended = await there.get('/dashboard/projects');
        expect(ended.statusCode).to.equal(302);
        expect(ended.headers.location).to.equal('/dashboard/sign-in?next=%2Fdashboard%2Fprojects&reason=ended');

        await here.get('/dashboard/account/sessions');
        expect((await here.post('/dashboard/account/sessions/revoke-others', {})).statusCode).to.equal(302);
        expect(pageText((await here.get('/dashboard/account/sessions')).payload)).to.contain('One other session is signed out.');
        expect((await call('GET', '/v1/users/me', user.session)).statusCode, 'the API session of register ended too').to.equal(401);

        const everywhere = await here.post('/dashboard/account/sessions/revoke-others', { everywhere: 'this-too' });
        expect(everywhere.headers.location).to.equal('/dashboard/sign-in?reason=signed-out');
        expect((await here.get('/dashboard/projects')).statusCode).to.equal(302);

        const trail = await signIn(user);
        const events = await trail.get('/dashboard/account/security');
        const text = pageText(events.payload);
        expect(text).to.contain('session.revoked');
        expect(text).to.contain('reason: signed_out_by_user');
        expect(text).to.contain('reason: signed_out_elsewhere');
        expect(text).to.contain('reason: logout');
    });

    it('pages through the security trail', async () => {
        const user = await register(instance.server);
        for (let i = 0; i < 101; ++i) {
            await call('POST', '/v1/auth/login', undefined, { email: user.email, password: 'wrong password here' });
        }

        const visitor = await signIn(user);
        const first = await visitor.get('/dashboard/account/security');
        const next = /href="\/dashboard\/account\/security\?cursor=(\d+)"/.exec(first.payload);
        expect(next).to.exist();
        const second = await visitor.get(`/dashboard/account/security?cursor=${next![1]}`);
        expect(pageText(second.payload)).to.contain('user.registered');
        expect(pageText(first.payload)).to.not.contain('user.registered');
        expect(second.payload).to.contain('href="/dashboard/account/security">Newest events');
    });

    it('adds and removes an SSH key, showing a refused key with the API\'s message', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        await visitor.get('/dashboard/account/ssh-keys');
        const bad = await visitor.post('/dashboard/account/ssh-keys', { name: 'bad', publicKey: 'ssh-ed25519 nope' });
        expect(bad.statusCode).to.equal(400);
        expect(bad.payload).to.contain('ssh-ed25519 nope');
        expect((await visitor.post('/dashboard/account/ssh-keys', { name: 'laptop', publicKey: sshPublicKey() })).statusCode).to.equal(302);
        const page = await visitor.get('/dashboard/account/ssh-keys');
        expect(pageText(page.payload)).to.contain('laptop SHA256:');
        const id = /action="\/dashboard\/account\/ssh-keys\/([^/]+)\/remove"/.exec(page.payload)![1];
        expect((await visitor.post(`/dashboard/account/ssh-keys/${id}/remove`)).statusCode).to.equal(302);
        expect((await call('GET', '/v1/users/me/ssh-keys', user.session)).result).to.equal([]);
    });

    it('writes the agent configurations from the server\'s own addresses', async () => {
        const user = await register(instance.server);
        const page = await (await signIn(user)).get('/dashboard/account/agents');
        const text = pageText(page.payload);
        for (const client of ['Claude Code', 'Claude Desktop', 'Cursor', 'VS Code']) {
            expect(text).to.contain(client);
        }

        expect(text).to.contain('claude mcp add --transport http hostless https://mcp.hostless.example.com/mcp --header "Authorization: Bearer svk_..."');
        expect(text).to.contain('API_BASE_URL=https://hostless.example.com');
        expect(page.payload).to.not.contain('<script>');

        const configs = agentConfigs({ publicUrl: 'https://hostless.example.com', mcpPublicUrl: 'https://mcp.hostless.example.com' }, '/srv/hostless/dist/manifest/stdio.js');
        const cursor = configs.find((config) => config.id === 'cursor')!;
        expect(JSON.parse(cursor.http)).to.equal({ mcpServers: { 'hostless': { url: 'https://mcp.hostless.example.com/mcp', headers: { Authorization: 'Bearer svk_...' } }, 'hostless-docs': { url: 'https://mcp.hostless.example.com/mcp/docs' } } });
        const vscode = configs.find((config) => config.id === 'vscode')!;
        expect(JSON.parse(vscode.stdio)).to.equal({ servers: { 'hostless-local': { type: 'stdio', command: 'node', args: ['/srv/hostless/dist/manifest/stdio.js'], env: { APP_TOKEN: 'svk_...', API_BASE_URL: 'https://hostless.example.com' } } } });
        const desktop = configs.find((config) => config.id === 'claude-desktop')!;
        expect(JSON.parse(desktop.stdio).mcpServers.hostless.env).to.equal({ APP_TOKEN: 'svk_...', API_BASE_URL: 'https://hostless.example.com' });
    });

    it('offers key presets that fill the scope grid', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        const page = await visitor.get('/dashboard/keys/new?preset=read-only');
        expect(page.payload).to.contain('href="/dashboard/keys/new?preset=deploy-ci"');
        expect(page.payload).to.contain('href="/dashboard/keys/new?preset=full-apps"');
        expect(page.payload).to.match(/value="apps:read" id="scope-apps-read" checked/);
        expect(page.payload).to.not.match(/value="apps:write" id="scope-apps-write" checked/);
        const full = await visitor.get('/dashboard/keys/new?preset=full-apps');
        expect(full.payload).to.match(/value="apps:delete" id="scope-apps-delete" checked/);
        expect(full.payload).to.not.match(/value="sites:read" id="scope-sites-read" checked/);
    });
});

describe('metric charts', () => {

    const base = { metric: 'cpu-usage', unit: 'percent', step: 60, startDate: '2026-11-24T08:00:00.000Z', endDate: '2026-11-24T09:00:00.000Z' };

    it('draws an unavailable series as unavailable, never as a line at zero', () => {
        const drawn = chart({ ...base, source: 'unavailable', series: [] });
        expect(drawn.unavailable).to.be.true();
        expect(drawn.svg).to.contain('Unavailable: nothing measures this here');
        expect(drawn.svg).to.not.contain('chart-line');
        expect(drawn.summary).to.contain('No value is shown rather than a zero');
    });

    it('draws a measured series with its scale, and a measured empty range as no data', () => {
        const drawn = chart({ ...base, source: 'measured', series: [{ timestamp: '2026-11-24T08:30:00.000Z', value: 40 }, { timestamp: '2026-11-24T08:31:00.000Z', value: 80 }] });
        expect(drawn.svg).to.contain('class="chart-line"');
        expect(drawn.svg).to.contain('>80%<');
        expect(drawn.summary).to.equal('CPU: 2 points, highest 80%, latest 80% at 08:31 UTC.');
        const empty = chart({ ...base, source: 'measured', series: [] });
        expect(empty.unavailable).to.be.false();
        expect(empty.svg).to.contain('No data in this range');
    });

    it('escapes what it prints', () => {
        const drawn = chart({ ...base, metric: '<script>', unit: '"x"', source: 'measured', series: [{ timestamp: '2026-11-24T08:30:00.000Z', value: 1 }] });
        expect(drawn.svg).to.not.contain('<script>');
        expect(drawn.svg).to.contain('&lt;script&gt;');
    });
});
