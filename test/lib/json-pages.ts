import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, collaborate, createKey, register, type TestUser } from '../helpers/api';
import { testServer, type TestServer } from '../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// The runtime kinds' lists are written as JSON by the database (lib/json-shape.ts). Over HTTP the body is that text
// as it is; it must be byte for byte what JSON.stringify writes for the kind's serialize(), which each kind's GET of
// one resource answers: awkward text (quotes, backslashes, control characters, non-ASCII), nulls, booleans, nested
// repositories and each kind's own fields included.
describe('lists written as JSON by the database', () => {

    let instance: TestServer;
    let owner: TestUser;
    let origin: string;
    const call = caller(() => instance.server);
    const awkward = 'echo "quoted" \\ back\tslash\u0001 é ✓ 𝄞 </script>';

    before(async () => {
        instance = await testServer({}, { start: true });
        origin = `http://127.0.0.1:${instance.server.info.port}`;
        owner = await register(instance.server, 'json-owner');
        const created = [
            await call('POST', '/v1/apps', owner.session, { name: 'json-plain' }),
            await call('POST', '/v1/apps', owner.session, { name: 'json-full', buildCommand: awkward, startCommand: 'npm start', autoDeploy: true, repository: { provider: 'github', repo: 'acme/web', branch: 'main' } }),
            await call('POST', '/v1/sites', owner.session, { name: 'json-site' }),
            await call('POST', '/v1/workers', owner.session, { name: 'json-worker', startCommand: awkward }),
            await call('POST', '/v1/cron-jobs', owner.session, { name: 'json-cron', schedule: '0 3 * * *', startCommand: 'node report.js' }),
            await call('POST', '/v1/cron-jobs', owner.session, { name: 'json-cron-paused', schedule: '*/5 * * * *', timeZone: 'Europe/Paris', startCommand: awkward })
        ];
        for (const res of created) {
            expect(res.statusCode, res.payload).to.equal(201);
        }

        expect((await call('POST', '/v1/cron-jobs/json-cron-paused/pause', owner.session)).statusCode).to.equal(200);
    });

    after(async () => {
        await instance?.stop();
    });

    /** The list's body over HTTP, every page followed, against the single GETs serialized by JavaScript. */
    const expectSameBytes = async (path: string, one: (name: string) => string, authorization: string) => {
        let url: string | null = `${path}?limit=2`;
        const names: string[] = [];
        while (url) {
            const res: Response = await fetch(`${origin}${url}`, { headers: { authorization } });
            expect(res.status).to.equal(200);
            expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8');
            const text = await res.text();
            const items = JSON.parse(text) as Array<{ name: string }>;
            const singles = await Promise.all(items.map(async (item) => (await call('GET', one(item.name), authorization)).result as object));
            expect(text).to.equal(JSON.stringify(singles));
            names.push(...items.map((item) => item.name));
            url = /^<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')?.[1] ?? null;
        }

        return names;
    };

    it('answers each runtime kind\'s list with the bytes its serialize() writes, page after page', async () => {
        expect(await expectSameBytes('/v1/apps', (name) => `/v1/apps/${name}`, owner.session)).to.equal(['json-full', 'json-plain']);
        expect(await expectSameBytes(`/v1/projects/${owner.projectId}/apps`, (name) => `/v1/apps/${name}`, owner.session)).to.equal(['json-full', 'json-plain']);
        expect(await expectSameBytes('/v1/sites', (name) => `/v1/sites/${name}`, owner.session)).to.equal(['json-site']);
        expect(await expectSameBytes('/v1/workers', (name) => `/v1/workers/${name}`, owner.session)).to.equal(['json-worker']);
        expect(await expectSameBytes('/v1/cron-jobs', (name) => `/v1/cron-jobs/${name}`, owner.session)).to.equal(['json-cron-paused', 'json-cron']);
        const text = await (await fetch(`${origin}/v1/apps?limit=1`, { headers: { authorization: owner.session } })).text();
        expect(JSON.parse(text)[0].buildCommand).to.equal(awkward);
    });

    it('links the next page with the query as sent, its cursor replaced', async () => {
        const linkOf = async (url: string) => {
            const res = await fetch(`${origin}${url}`, { headers: { authorization: owner.session } });
            expect(res.status).to.equal(200);
            return /^<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')?.[1] ?? null;
        };

        expect((await call('POST', '/v1/apps', owner.session, { name: 'json-third' })).statusCode).to.equal(201);
        const first = await linkOf(`/v1/apps?limit=1&projectId=${owner.projectId}`);
        expect(first).to.match(new RegExp(`^/v1/apps\\?limit=1&projectId=${owner.projectId}&cursor=[\\w-]+$`));
        const second = await linkOf(first!);
        expect(second).to.match(new RegExp(`^/v1/apps\\?limit=1&projectId=${owner.projectId}&cursor=[\\w-]+$`));
        expect(second).to.not.equal(first);
        expect(await linkOf(second!)).to.equal(null);
    });

    it('answers an injected request (MCP and the dashboard in this process) with the same body as a value', async () => {
        const key = await createKey(instance.server, owner, ['apps:read']);
        const injected = await call('GET', '/v1/apps', key.token);
        const fetched = await fetch(`${origin}/v1/apps`, { headers: { authorization: key.token } });
        expect(Array.isArray(injected.result)).to.be.true();
        expect(injected.payload).to.equal(await fetched.text());
    });

    it('lists a collaborator\'s granted resource the same way', async () => {
        const guest = await register(instance.server, 'json-guest');
        await collaborate(instance.server, owner, '/v1/apps/json-full', guest, ['view']);
        expect(await expectSameBytes('/v1/apps', (name) => `/v1/apps/${name}`, guest.session)).to.equal(['json-full']);
    });
});
