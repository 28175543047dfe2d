import * as Http from 'node:http';
import type { AddressInfo } from 'node:net';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { ApiUnreachableError, httpApiClient, injectApiClient, relativeUrl, type ApiRequest } from '../../lib/mcp/api-client';
import { createKey, register } from '../helpers/api';
import { testServer, type TestServer } from '../helpers/server';

// The MCP server's way to this deployment's API: one interface over HTTP and over inject(), giving the same answers,
// and a credential that goes to that API and nowhere else.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

function listen(handler: Http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
    const server = Http.createServer(handler);
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((done) => server.close(() => done()))
    })));
}

describe('the API client', () => {

    let api: TestServer;

    before(async () => {
        api = await testServer({}, { start: true });
    });

    after(async () => {
        await api?.stop();
    });

    it('answers the same over HTTP and in-process: status, JSON body, Link header and empty bodies', async () => {
        const user = await register(api.server, 'client');
        const clients = [httpApiClient(api.server.info.uri), injectApiClient(api.server, api.server.info.uri)];
        await clients[0].request({ method: 'POST', path: '/v1/projects', body: { name: 'Parity' }, authorization: user.session });
        const requests: ApiRequest[] = [
            { method: 'GET', path: '/v1/projects', query: { limit: 1, cursor: undefined }, authorization: user.session },
            { method: 'GET', path: '/v1/auth/introspect', authorization: 'Bearer nope' }
        ];
        const answers = [];
        for (const client of clients) {
            for (const request of requests) {
                answers.push(await client.request(request));
            }
        }

        expect(answers.slice(0, 2)).to.equal(answers.slice(2));
        expect((answers[0].body as Array<{ name: string }>)[0].name).to.equal('Parity');
        expect(answers[0].link).to.match(/^<\/v1\/projects\?limit=1&cursor=[\w-]+>; rel="next"$/);
        const refusal = { statusCode: 401, error: 'Unauthorized', message: 'Invalid or expired access token' };
        expect(answers[1]).to.equal({ status: 401, body: refusal, link: null, json: JSON.stringify(refusal) });
        expect(JSON.parse(answers[0].json!)).to.equal(answers[0].body);

        for (const client of clients) {
            const created = await client.request({ method: 'POST', path: '/v1/projects', body: { name: 'Doomed' }, authorization: user.session });
            const deleted = await client.request({ method: 'DELETE', path: `/v1/projects/${(created.body as { id: string }).id}`, authorization: user.session });
            expect(deleted).to.equal({ status: 204, body: null, link: null });
        }
    });

    it('reads a list page the database keeps as JSON text as that text in-process, answering as over HTTP', async () => {
        const user = await register(api.server, 'pages');
        for (const name of ['page-one', 'page-two', 'page-three']) {
            const made = await api.server.inject({ method: 'POST', url: '/v1/apps', headers: { authorization: user.session }, payload: { name } });
            expect(made.statusCode).to.equal(201);
        }

        const request: ApiRequest = { method: 'GET', path: '/v1/apps', query: { limit: 2 }, authorization: user.session };
        const [overHttp, inProcess] = [await httpApiClient(api.server.info.uri).request(request), await injectApiClient(api.server, api.server.info.uri).request(request)];
        expect(inProcess).to.equal(overHttp);
        expect((inProcess.body as Array<{ name: string }>).map((app) => app.name)).to.equal(['page-three', 'page-two']);
        expect(inProcess.json).to.equal(JSON.stringify(inProcess.body));
        expect(inProcess.link).to.match(/^<\/v1\/apps\?limit=2&cursor=[\w-]+>; rel="next"$/);

        // Other injected requests (the dashboard, tests) still read the page as a value.
        const injected = await api.server.inject({ method: 'GET', url: '/v1/apps?limit=2', headers: { authorization: user.session } });
        expect(injected.result).to.equal(inProcess.body as object);
        expect(injected.payload).to.equal(inProcess.json!);
    });

    it('introspects alike over HTTP, through inject and through the auth plugin\'s own check', async () => {
        const user = await register(api.server, 'introspected');
        const key = await createKey(api.server, user, ['apps:read']);
        const clients = [
            httpApiClient(api.server.info.uri),
            injectApiClient(api.server, api.server.info.uri),
            injectApiClient(api.server, api.server.info.uri, api.server.plugins['hostless-auth'].introspect)
        ];
        for (const authorization of [key.token, `Bearer ${key.token}`, user.session, 'Bearer nope', 'svk_bad', 'Basic x']) {
            const answers = await Promise.all(clients.map((client) => client.introspect(authorization)));
            expect(answers[1], authorization).to.equal(answers[0]);
            // The plugin's own check reads no JSON text: the answer is the same but for that.
            const { json, ...answer } = answers[0];
            expect(json).to.equal(JSON.stringify(answer.body));
            expect(answers[2], authorization).to.equal(answer);
        }

        expect((await clients[2].introspect(key.token)).body).to.equal({ userId: user.id, via: 'key', credentialId: key.id, scopes: ['apps:read'], isAdmin: false });
        await api.server.inject({ method: 'DELETE', url: `/v1/users/me/api-keys/${key.id}`, headers: { authorization: user.session } });
        expect(await clients[2].introspect(key.token)).to.equal({ status: 401, body: { statusCode: 401, error: 'Unauthorized', message: 'API key has been revoked' }, link: null });
    });

    it('never follows a redirect: the credential stays with the API it was meant for', async () => {
        const received: string[] = [];
        const elsewhere = await listen((req, res) => {
            received.push(String(req.headers.authorization));
            res.end('{}');
        });
        const redirecting = await listen((_req, res) => {
            res.writeHead(302, { location: `${elsewhere.url}/v1/auth/introspect` }).end();
        });
        try {
            const answer = await httpApiClient(redirecting.url).request({ method: 'GET', path: '/v1/auth/introspect', authorization: 'Bearer secret-token' });
            expect(answer.status).to.equal(302);
            expect(received).to.equal([]);
        }
        finally {
            await elsewhere.close();
            await redirecting.close();
        }
    });

    it('keeps a base URL\'s path prefix, and sends only /v1 paths', async () => {
        const paths: string[] = [];
        const proxy = await listen((req, res) => {
            paths.push(req.url!);
            res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
        });
        try {
            await httpApiClient(`${proxy.url}/platform`).request({ method: 'GET', path: '/v1/projects', query: { projectId: 'prj_x' }, authorization: 'svk_x' });
            expect(paths).to.equal(['/platform/v1/projects?projectId=prj_x']);
            expect(() => relativeUrl({ path: 'https://elsewhere.example/v1/projects' })).to.throw('API paths start with /v1/: https://elsewhere.example/v1/projects');
        }
        finally {
            await proxy.close();
        }
    });

    it('tells an unreachable API apart from any answer, without the credential in the message', async () => {
        const closed = await listen(() => { });
        await closed.close();
        const error = await expect(httpApiClient(closed.url).request({ method: 'GET', path: '/v1/auth/introspect', authorization: 'Bearer secret-token' })).to.reject(ApiUnreachableError);
        expect(error.message).to.equal(`The platform API at ${closed.url} could not be reached: the connection failed`);
    });

    it('reports a body that is not JSON without failing', async () => {
        const broken = await listen((_req, res) => {
            res.writeHead(502).end('<html>bad gateway</html>');
        });
        try {
            const answer = await httpApiClient(broken.url).request({ method: 'GET', path: '/v1/projects', authorization: 'svk_x' });
            expect(answer).to.equal({ status: 502, body: { statusCode: 502, error: 'Unexpected response', message: 'The API answered with a body that is not JSON' }, link: null });
        }
        finally {
            await broken.close();
        }
    });
});
