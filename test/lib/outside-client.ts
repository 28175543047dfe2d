import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { refusedReason } from '../../lib/outside/destination';
import { OutsideClient, OutsideServiceError } from '../../lib/outside/http-client';
import { fakeService, type FakeService } from '../helpers/fake-service';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const refused = async (promise: Promise<unknown>) => {
    const err = await expect(promise).to.reject(OutsideServiceError);
    return err;
};

describe('outside-service client', () => {

    let fake: FakeService;
    let hits = 0;

    before(async () => {
        fake = await fakeService([
            { method: 'GET', path: '/ok', handler: () => ({ ok: true }) },
            { method: 'GET', path: '/to-private', handler: (_r, h) => h.redirect('http://10.0.0.1/metadata') },
            { method: 'GET', path: '/to-metadata', handler: (_r, h) => h.redirect('http://169.254.169.254/latest/meta-data') },
            { method: 'GET', path: '/to-same', handler: (_r, h) => h.redirect('/ok') },
            { method: 'GET', path: '/to-other-origin', handler: (request, h) => h.redirect(`http://localhost:${request.server.info.port}/ok`) },
            { method: 'GET', path: '/loop', handler: (_r, h) => h.redirect('/loop') },
            { method: 'GET', path: '/flaky', handler: (_r, h) => ++hits < 3 ? h.response({ busy: true }).code(503) : { ok: true } },
            { method: 'POST', path: '/flaky-post', handler: (_r, h) => (++hits, h.response({ busy: true }).code(503)) },
            { method: 'GET', path: '/slow', handler: () => new Promise((resolve) => setTimeout(() => resolve({ late: true }), 500)) },
            { method: 'GET', path: '/big', handler: () => 'x'.repeat(200_000) },
            { method: 'DELETE', path: '/echo', handler: (request) => ({ received: request.payload }) }
        ]);
    });

    after(async () => {
        await fake?.stop();
    });

    const client = (options: Partial<ConstructorParameters<typeof OutsideClient>[0]> = {}) =>
        new OutsideClient({ service: 'test', allowlist: ['127.0.0.1'], retryBaseMs: 5, ...options });

    it('classifies loopback, private, link-local and reserved addresses, also inside IPv6', () => {
        const cases: Record<string, string | null> = {
            '127.0.0.1': 'loopback', '10.2.3.4': 'private', '172.20.0.1': 'private', '192.168.1.1': 'private', '100.64.0.1': 'private',
            '169.254.169.254': 'link-local', '0.0.0.0': 'reserved', '198.51.100.7': 'reserved', '224.0.0.1': 'multicast',
            '::1': 'loopback', '::ffff:127.0.0.1': 'loopback', '::ffff:a9fe:a9fe': 'link-local', '64:ff9b::a00:1': 'private',
            '2002:c0a8:101::1': 'private', 'fe80::1': 'link-local', 'fd12:3456::1': 'private',
            '8.8.8.8': null, '1.1.1.1': null, '2606:4700:4700::1111': null
        };
        for (const [address, reason] of Object.entries(cases)) {
            expect(refusedReason(address), address).to.equal(reason);
        }
    });

    it('refuses private destinations by address and by name unless allowed', async () => {
        const strict = client({ allowlist: [] });
        for (const url of [`${fake.url}/ok`, `http://localhost:${fake.server.info.port}/ok`, 'http://[::1]:1/x', 'http://10.0.0.1/x', 'http://169.254.169.254/latest']) {
            const err = await refused(strict.request({ method: 'GET', url }));
            expect(err.code, url).to.equal('refused_destination');
        }

        expect((await refused(strict.request({ method: 'GET', url: 'file:///etc/passwd' }))).code).to.equal('refused_destination');
        expect((await client().request({ method: 'GET', url: `${fake.url}/ok` })).json()).to.equal({ ok: true });
        expect((await client({ allowlist: ['127.0.0.0/8'] }).request({ method: 'GET', url: `${fake.url}/ok` })).status).to.equal(200);
        expect((await client({ allowlist: ['localhost'] }).request({ method: 'GET', url: `http://localhost:${fake.server.info.port}/ok` })).status).to.equal(200);
    });

    it('follows a redirect only to an allowed destination', async () => {
        expect((await client().request({ method: 'GET', url: `${fake.url}/to-same` })).json()).to.equal({ ok: true });
        for (const path of ['/to-private', '/to-metadata']) {
            expect((await refused(client().request({ method: 'GET', url: `${fake.url}${path}` }))).code).to.equal('refused_destination');
        }

        expect((await refused(client().request({ method: 'GET', url: `${fake.url}/loop` }))).code).to.equal('too_many_redirects');
    });

    it('drops credentials when a redirect leaves the origin', async () => {
        fake.requests.length = 0;
        await client({ allowlist: ['127.0.0.1', 'localhost'] }).request({ method: 'GET', url: `${fake.url}/to-other-origin`, headers: { authorization: 'Bearer secret-token', 'x-trace': 'kept' } });
        expect(fake.requests.map((r) => [r.path, r.headers.authorization, r.headers['x-trace']])).to.equal([
            ['/to-other-origin', 'Bearer secret-token', 'kept'],
            ['/ok', undefined, 'kept']
        ]);
    });

    it('retries an idempotent call on a transient answer, never a POST', async () => {
        hits = 0;
        const answer = await client({ retries: 2 }).request({ method: 'GET', url: `${fake.url}/flaky` });
        expect(answer.status).to.equal(200);
        expect(hits).to.equal(3);

        hits = 0;
        const post = await client({ retries: 2 }).request({ method: 'POST', url: `${fake.url}/flaky-post`, body: '{}', headers: { 'content-type': 'application/json' } });
        expect(post.status).to.equal(503);
        expect(hits).to.equal(1);
    });

    it('sends the body of a DELETE with its length, so the receiver reads it', async () => {
        const answer = await client().request({ method: 'DELETE', url: `${fake.url}/echo`, body: JSON.stringify({ access_token: 'gone' }), headers: { 'content-type': 'application/json' } });
        expect(answer.json()).to.equal({ received: { access_token: 'gone' } });
    });

    it('times out, and caps the size of an answer', async () => {
        const slow = await refused(client({ timeoutMs: 100, retries: 0 }).request({ method: 'GET', url: `${fake.url}/slow` }));
        expect(slow.code).to.equal('timeout');
        const big = await refused(client({ maxResponseBytes: 1000 }).request({ method: 'GET', url: `${fake.url}/big` }));
        expect(big.code).to.equal('too_large');
    });

    it('never puts a credential in an error', async () => {
        const err = await refused(client({ allowlist: [] }).request({ method: 'GET', url: `${fake.url}/ok`, headers: { authorization: 'Bearer svr_topsecretvalue123' } }));
        expect(err.message).to.not.include('topsecret');
        expect(err.message).to.startWith('test: ');
    });
});
