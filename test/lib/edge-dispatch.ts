import * as Http from 'node:http';
import type { AddressInfo } from 'node:net';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import type { FastReader } from '../../lib/db/fast-reader';
import { Edge, pathOf, type EdgeTarget } from '../../lib/edge/edge';
import { HostRules } from '../../lib/edge/hosts';
import type { Measurement } from '../../lib/edge/meter';
import { edgeRequest } from '../helpers/sites';

const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

// The edge reads a request's path without the URL parser when nothing in it would change; the answer must be the one
// the parser gives (decoded, dot segments resolved) for every path.
const parsed = (url: string) => {
    try {
        return decodeURIComponent(new URL(url, 'http://edge.invalid').pathname);
    }
    catch {
        return null;
    }
};

describe('the edge\'s request path', () => {

    it('is what the URL parser gives, for plain and unusual paths alike', () => {
        const cases = ['/', '/a', '/a/', '/a.b', '/.well-known/x', '/a/./b', '/a/../b', '/..', '/.', '/a/..', '/a?x=1', '/a?x=/../y', '/a b', '/é', '/"<>`{}|^',
            '//x', '/a//b', '/%2e%2e/x', '/a%20b', '/%zz', '/a\\b', '/x#y', '/a..', '/..a', '/a/.b/', '/a;b=c', '/a ', '/a\tb'];
        for (const url of cases) {
            expect(pathOf(url), url).to.equal(parsed(url));
        }

        expect(pathOf('/%zz')).to.be.null();
        expect(pathOf('/app.js?v=2')).to.equal('/app.js');
    });

    it('is what the URL parser gives for random paths', () => {
        const chars = ['/', '.', 'a', '?', '#', '%', '2', 'e', '\\', ' ', 'é', ';', ':', '@', '"', '\t', '|', '[', ']'];
        let seed = 7;
        const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
        for (let i = 0; i < 20_000; ++i) {
            let url = '/';
            for (let n = 1 + Math.floor(next() * 8); n > 0; --n) {
                url += chars[Math.floor(next() * chars.length)];
            }

            expect(pathOf(url), JSON.stringify(url)).to.equal(parsed(url));
        }
    });
});

// The edge attached to a listener, with a reader that knows two names: `proxied` (a target with a raw handler) and
// `filed` (a target hapi answers), and a stand-in for hapi's own listener.
describe('the edge on the listener', () => {

    const reads: string[] = [];
    const reader = {
        get: (sql: string, params: readonly unknown[]) => {
            reads.push(String(params[0]));
            const known: Record<string, { resource_type: string; resource_id: string }> = { proxied: { resource_type: 'app', resource_id: 'app_1' }, filed: { resource_type: 'site', resource_id: 'site_1' } };
            return params[0] === 'broken' ? Promise.reject(new Error('database gone')) : Promise.resolve(known[String(params[0])]);
        }
    } as unknown as FastReader;
    const resource = (type: string, id: string) => ({ type, id, projectId: 'prj_1', name: id });

    const start = async (raw: (target: EdgeTarget, res: Http.ServerResponse) => void) => {
        const measured: Measurement[] = [];
        const edge = new Edge({ hosts: new HostRules({ publicUrl: 'http://localhost:1', mcpPublicUrl: 'http://localhost:1', apiBaseUrl: 'http://localhost:1', bind: '127.0.0.1', sitesDomain: 'localhost' }), reader, measure: (m) => measured.push(m) });
        edge.provide('app', ({ resourceId }) => Promise.resolve({ kind: 'upstream', resource: resource('app', resourceId), deploymentId: 'dep_1', upstreams: [{ id: 'ins_1', host: '127.0.0.1', port: 1 }] }));
        edge.provide('site', ({ resourceId }) => Promise.resolve({ kind: 'files', resource: resource('site', resourceId), deploymentId: 'dep_2', spa: false }));
        edge.serveRaw('upstream', (target, exchange) => {
            raw(target, exchange.res);
            exchange.res.once('finish', () => exchange.measure({ status: exchange.res.statusCode, bytes: 2 }));
        });
        const server = Http.createServer((req, res) => res.end(`hapi ${req.headers.host!.split(':')[0]}`));
        edge.attach(server);
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        const get = async (host: string, path = '/') => {
            const res = await edgeRequest((server.address() as AddressInfo).port, host, path);
            return { status: res.status, body: res.body.toString() };
        };

        return { edge, server, get, measured, stop: () => new Promise((resolve) => server.close(resolve)) };
    };

    it('answers a raw target before hapi, and hands everything else to hapi after one lookup', async () => {
        const { get, measured, stop } = await start((target, res) => res.end(`raw ${target.resource.id}`));
        try {
            reads.length = 0;
            expect(await get('proxied.localhost', '/a/b?c=1')).to.equal({ status: 200, body: 'raw app_1' });
            expect(measured.map((m) => [m.resource.id, m.path, m.status])).to.equal([['app_1', '/a/b', 200]]);
            expect(await get('filed.localhost')).to.equal({ status: 200, body: 'hapi filed.localhost' });
            expect(await get('localhost')).to.equal({ status: 200, body: 'hapi localhost' });
            expect(await get('nothing.localhost')).to.equal({ status: 200, body: 'hapi nothing.localhost' });
            expect(reads, 'each tenant host looked up once; the platform not at all').to.equal(['proxied', 'filed', 'nothing']);
            expect(await get('broken.localhost'), 'a failed lookup goes on to hapi, which answers it').to.equal({ status: 200, body: 'hapi broken.localhost' });
        }
        finally {
            await stop();
        }
    });

    it('ends a request whose raw handler throws with 502, and keeps serving', async () => {
        const { get, stop } = await start(() => {
            throw new Error('handler broke');
        });
        try {
            expect((await get('proxied.localhost')).status).to.equal(502);
            expect(await get('localhost')).to.equal({ status: 200, body: 'hapi localhost' });
        }
        finally {
            await stop();
        }
    });

    it('waits for the raw requests in flight to end', async () => {
        let release = () => { };
        let entered = () => { };
        const inFlight = new Promise<void>((resolve) => {
            entered = resolve;
        });
        const { edge, get, stop } = await start((_target, res) => {
            release = () => res.end('late');
            entered();
        });
        try {
            expect(await edge.drained(10)).to.be.undefined();
            const answer = get('proxied.localhost');
            await inFlight;
            let done = false;
            const drained = edge.drained(5000).then(() => {
                done = true;
            });
            await new Promise((resolve) => setTimeout(resolve, 50));
            expect(done, 'not drained while the request is in flight').to.be.false();
            release();
            await drained;
            expect((await answer).body).to.equal('late');
        }
        finally {
            await stop();
        }
    });
});
