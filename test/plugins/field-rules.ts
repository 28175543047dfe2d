import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../helpers/api';
import { createApp } from '../helpers/apps';
import { sshPublicKey } from '../helpers/ssh';
import { testServer, type TestServer } from '../helpers/server';

// The shared field rules of lib/validation.ts, through the routes that use them: names a person gives refuse what
// cannot be seen or reorders what follows, and dates must exist on the calendar, in bodies and query strings alike.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('shared field rules', () => {

    let instance: TestServer;
    let user: TestUser;
    let appName: string;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
        user = await register(instance.server);
        appName = (await createApp(instance.server, user)).name;
    });

    after(async () => {
        await instance?.stop();
    });

    const INVISIBLE: Record<string, string> = {
        'NUL': 'a\u0000b',
        'a control character': 'a\u0007b',
        'DEL': 'a\u007fb',
        'a right-to-left override': 'invoice\u202Efdp.exe',
        'a bidi isolate': 'a\u2066b\u2069',
        'a zero-width space': 'a\u200Bb',
        'a byte order mark': 'na\uFEFFme',
        'a line separator': 'a\u2028b',
        'a lone surrogate': 'a\uD800b'
    };

    it('refuses control and format characters in every free-text name with 400 naming the field, and stores nothing', async () => {
        const names: Array<[string, string, (name: string) => Record<string, unknown>, string]> = [
            ['POST', '/v1/projects', (name) => ({ name }), 'name'],
            ['PATCH', `/v1/projects/${user.projectId}`, (name) => ({ name }), 'name'],
            ['POST', '/v1/users/me/api-keys', (name) => ({ name, scopes: ['apps:read'] }), 'name'],
            ['POST', '/v1/users/me/ssh-keys', (name) => ({ name, publicKey: sshPublicKey() }), 'name'],
            ['PATCH', '/v1/users/me', (name) => ({ name }), 'name'],
            ['POST', `/v1/apps/${appName}/deployments/new`, (branch) => ({ branch }), 'branch'],
            ['PATCH', `/v1/apps/${appName}`, (branch) => ({ repository: { provider: 'github', repo: 'acme/shop', branch } }), 'repository.branch'],
            ['POST', '/v1/users/me/oauth-clients', (name) => ({ name, redirectUris: ['https://client.example/callback'] }), 'name']
        ];
        for (const [method, url, body, field] of names) {
            for (const [what, name] of Object.entries(INVISIBLE)) {
                const res = await call(method, url, user.session, body(name));
                expect(res.statusCode, `${method} ${url}: ${what}`).to.equal(400);
                expect(res.result.message, `${method} ${url}: ${what}`).to.equal(`"${field}" must not contain control or invisible formatting characters`);
            }
        }

        const registered = await call('POST', '/v1/auth/register', undefined, { email: 'bidi@example.test', password: 'correct horse battery staple', name: 'Eve\u202E' });
        expect(registered.statusCode).to.equal(400);
        expect(registered.result.message).to.equal('"name" must not contain control or invisible formatting characters');

        const projects = await call('GET', '/v1/projects', user.session);
        expect(projects.result.map((project: { name: string }) => project.name)).to.equal(['Personal']);
        expect((await call('GET', '/v1/users/me/api-keys', user.session)).result).to.equal([]);
        expect((await call('GET', '/v1/users/me/oauth-clients', user.session)).result).to.equal([]);
    });

    it('accepts letters of any script and emoji in names', async () => {
        for (const name of ['Zoë Ångström', 'Ελληνικά', '中文项目', 'مشروع', 'Проект 🚀']) {
            const project = await call('POST', '/v1/projects', user.session, { name });
            expect(project.statusCode, name).to.equal(201);
            expect(project.result.name).to.equal(name);
            const profile = await call('PATCH', '/v1/users/me', user.session, { name });
            expect(profile.statusCode, name).to.equal(200);
        }
    });

    it('refuses a date that does not exist on the calendar with 400 naming the field, in a body and in a query string', async () => {
        const key = await call('POST', '/v1/users/me/api-keys', user.session, { name: 'k', scopes: ['apps:read'], expiresAt: '2030-02-30T00:00:00Z' });
        expect(key.statusCode).to.equal(400);
        expect(key.result.message).to.equal('"expiresAt" must be a date that exists on the calendar');
        for (const [query, field] of [
            ['since=2030-02-30T00:00:00Z', 'since'], ['until=2029-02-29T10:00:00Z', 'until'], ['since=2030-04-31', 'since'], ['since=2030-13-01T00:00:00Z', 'since']
        ]) {
            const logs = await call('GET', `/v1/apps/${appName}/logs?${query}`, user.session);
            expect(logs.statusCode, query).to.equal(400);
            expect(logs.result.message, query).to.match(new RegExp(`^"${field}" must be (a date that exists on the calendar|a valid ISO 8601 date)$`));
        }

        const metrics = await call('GET', `/v1/apps/${appName}/metrics/cpu-usage?startDate=2030-02-30`, user.session);
        expect(metrics.statusCode).to.equal(400);
        expect(metrics.result.message).to.equal('"startDate" must be a date that exists on the calendar');
        const traces = await call('GET', `/v1/traces/${appName}?since=2030-06-31T00:00:00Z`, user.session);
        expect(traces.statusCode).to.equal(400);
        expect(traces.result.message).to.equal('"since" must be a date that exists on the calendar');

        const leap = await call('POST', '/v1/users/me/api-keys', user.session, { name: 'leap', scopes: ['apps:read'], expiresAt: '2032-02-29T00:00:00Z' });
        expect(leap.statusCode).to.equal(201);
        expect(leap.result.apiKey.expiresAt).to.equal('2032-02-29T00:00:00.000Z');
    });
});
