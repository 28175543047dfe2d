import * as Zlib from 'node:zlib';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../../helpers/api';
import { createApp } from '../../helpers/apps';
import { testServer, type TestServer } from '../../helpers/server';
import { createSiteFromUpload, edgeRequest, siteLive, tarGz, uploadForm } from '../../helpers/sites';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// The edge over real HTTP: an uploaded site goes live and is served by its Host on the API's port, with the
// index fallback, content types, ETags, caching, compression and 404 pages; what it served shows in the site's
// measured metrics; tenant hosts own every path; apps and sites share one name space.
describe('the edge', () => {

    let instance: TestServer;
    let owner: TestUser;
    let port: number;
    const call = caller(() => instance.server);
    const css = `body { color: #123456; }\n${'.rule { margin: 0 auto; padding: 1rem; }\n'.repeat(200)}`;
    const site = `edge-${Date.now().toString(36)}`;

    before(async () => {
        instance = await testServer({}, { start: true });
        instance.server.plugins['hostless-jobs'].queue.start();
        port = instance.server.info.port as number;
        owner = await register(instance.server, 'edge-owner');
    });

    after(async () => {
        await instance?.stop();
    });

    it('serves an uploaded site on its host, and measures what it served', async () => {
        const archive = tarGz([
            { name: 'index.html', content: '<!doctype html><title>Home</title><h1>Home</h1>' },
            { name: 'docs/', type: '5' },
            { name: 'docs/guide/index.html', content: '<h1>Guide</h1>' },
            { name: 'about.html', content: '<h1>About</h1>' },
            { name: 'style.css', content: css },
            { name: '404.html', content: '<h1>Nothing here</h1>' }
        ]);
        const created = await createSiteFromUpload(instance.server, owner, site, archive, { projectId: owner.projectId });
        expect(created.statusCode, created.payload).to.equal(201);
        expect(created.result).to.include({ name: site, source: 'upload', status: 'deploying' });
        expect(created.result.deployment).to.include({ status: 'queued', driver: 'static', trigger: 'upload' });
        const live = await siteLive(instance.server, owner, site, created.result.deployment.id);
        expect(live).to.include({ status: 'live', liveDeploymentId: created.result.deployment.id });

        const host = `${site}.localhost`;
        const home = await edgeRequest(port, host, '/');
        expect(home.status).to.equal(200);
        expect(home.body.toString()).to.equal('<!doctype html><title>Home</title><h1>Home</h1>');
        expect(home.headers['content-type']).to.equal('text/html; charset=utf-8');
        expect(home.headers['cache-control']).to.equal('public, max-age=0, must-revalidate');
        expect(home.headers.etag).to.match(/^"[0-9a-f]{32}"$/);
        const again = await edgeRequest(port, host, '/', { headers: { 'if-none-match': home.headers.etag! } });
        expect(again.status).to.equal(304);
        expect(again.body.length).to.equal(0);

        const guide = await edgeRequest(port, host, '/docs/guide/');
        expect([guide.status, guide.body.toString()]).to.equal([200, '<h1>Guide</h1>']);
        const folder = await edgeRequest(port, host, '/docs/guide?x=1');
        expect([folder.status, folder.headers.location]).to.equal([301, '/docs/guide/?x=1']);
        expect((await edgeRequest(port, host, '/about')).body.toString()).to.equal('<h1>About</h1>');

        const plain = await edgeRequest(port, host, '/style.css');
        expect([plain.status, plain.headers['content-type'], plain.body.toString()]).to.equal([200, 'text/css; charset=utf-8', css]);
        const zipped = await edgeRequest(port, host, '/style.css', { headers: { 'accept-encoding': 'gzip' } });
        expect(zipped.headers['content-encoding']).to.equal('gzip');
        expect(zipped.headers.vary).to.include('accept-encoding');
        expect(zipped.body.length).to.be.below(css.length / 5);
        expect(Zlib.gunzipSync(zipped.body).toString()).to.equal(css);

        const missing = await edgeRequest(port, host, '/no/such/page');
        expect([missing.status, missing.body.toString()]).to.equal([404, '<h1>Nothing here</h1>']);
        expect((await edgeRequest(port, host, '/', { method: 'POST' })).status).to.equal(405);
        const head = await edgeRequest(port, host, '/docs/guide/', { method: 'HEAD' });
        expect([head.status, head.body.length, head.headers['content-length']]).to.equal([200, 0, '14']);

        await instance.server.plugins['hostless-edge'].meter.flush();
        const count = await call('GET', `/v1/sites/${site}/metrics/request-count`, owner.session);
        expect(count.result.source).to.equal('measured');
        const served = 10;
        expect(count.result.series.reduce((sum: number, point: { value: number }) => sum + point.value, 0)).to.equal(served);
        expect((await call('GET', `/v1/sites/${site}/metrics/request-count/total`, owner.session)).result).to.include({ source: 'measured', total: served });
        const paths = await call('GET', `/v1/sites/${site}/metrics/top-paths`, owner.session);
        expect(paths.result.source).to.equal('measured');
        const byPath = Object.fromEntries(paths.result.paths.map((entry: { path: string; requests: number }) => [entry.path, entry.requests]));
        expect(byPath).to.equal({ '/': 2, '/docs/guide/': 2, '/docs/guide': 1, '/about': 1, '/style.css': 2, '(404)': 1, '(405)': 1 });
        const bandwidth = await call('GET', `/v1/sites/${site}/metrics/bandwidth`, owner.session);
        expect(bandwidth.result.source).to.equal('measured');
        expect(bandwidth.result.series.reduce((sum: number, point: { value: number }) => sum + point.value, 0) as number).to.be.above(css.length);
        const visitors = await call('GET', `/v1/sites/${site}/metrics/unique-visitors`, owner.session);
        expect(visitors.result).to.include({ source: 'measured', total: 1 });
        expect((await call('GET', `/v1/sites/${site}/metrics/response-duration`, owner.session)).result.source).to.equal('measured');
        for (const metric of ['cpu-usage', 'memory-usage']) {
            expect((await call('GET', `/v1/sites/${site}/metrics/${metric}`, owner.session)).result).to.include({ source: 'unavailable', series: [] });
        }

        const stored = await instance.server.app.knex('edge_visitors').select();
        expect(JSON.stringify(stored)).to.not.include('127.0.0.1');
    });

    it('gives a tenant\'s host every path: /dashboard and /v1/projects answer the tenant\'s 404 there', async () => {
        for (const path of ['/dashboard', '/v1/projects', '/oauth/authorize', '/docs']) {
            const res = await edgeRequest(port, `${site}.localhost`, path, { headers: { authorization: owner.session } });
            expect([res.status, res.body.toString()], path).to.equal([404, '<h1>Nothing here</h1>']);
        }

        const nobody = await edgeRequest(port, 'nobody-here.localhost', '/v1/projects');
        expect(nobody.status).to.equal(404);
        expect(nobody.body.toString()).to.include('There is no site at this address.');
        const platform = await edgeRequest(port, 'localhost', '/v1/projects', { headers: { authorization: owner.session } });
        expect(platform.status).to.equal(200);
        expect((await edgeRequest(port, '127.0.0.1', '/v1/projects')).status).to.equal(401);
    });

    it('switches deployments atomically: every response is wholly the old files or wholly the new', async () => {
        const name = `switch-${Date.now().toString(36)}`;
        const page = (mark: string) => `<p>${mark.repeat(300_000)}</p>`;
        const first = await createSiteFromUpload(instance.server, owner, name, tarGz([{ name: 'index.html', content: page('a') }]), { projectId: owner.projectId });
        await siteLive(instance.server, owner, name, first.result.deployment.id);

        const form = uploadForm(null, tarGz([{ name: 'index.html', content: page('b') }]));
        const second = instance.server.inject({ method: 'POST', url: `/v1/sites/${name}/upload`, headers: { ...form.headers, authorization: owner.session }, payload: form.payload });
        const bodies: string[] = [];
        let settled = false;
        const readers = Array.from({ length: 4 }, async () => {
            while (!settled) {
                bodies.push((await edgeRequest(port, `${name}.localhost`, '/')).body.toString());
            }
        });
        const deployment = (await second).result as { id: string };
        await siteLive(instance.server, owner, name, deployment.id);
        settled = true;
        await Promise.all(readers);
        bodies.push((await edgeRequest(port, `${name}.localhost`, '/')).body.toString());
        expect(bodies.every((body) => body === page('a') || body === page('b'))).to.be.true();
        expect(bodies[bodies.length - 1]).to.equal(page('b'));
    });

    it('shares one name space between apps and sites: each refuses the other\'s name with 409', async () => {
        const app = await createApp(instance.server, owner);
        const taken = await createSiteFromUpload(instance.server, owner, app.name, tarGz([{ name: 'index.html', content: 'x' }]), { projectId: owner.projectId });
        expect([taken.statusCode, taken.result.message]).to.equal([409, `The name ${app.name} is taken`]);
        const plain = await call('POST', '/v1/sites', owner.session, { name: app.name });
        expect(plain.statusCode).to.equal(409);
        const viaBuilder = await call('POST', '/v1/sites/from-visual-builder', owner.session, { name: app.name });
        expect(viaBuilder.statusCode).to.equal(409);

        const reverse = await call('POST', '/v1/apps', owner.session, { name: site });
        expect([reverse.statusCode, reverse.result.message]).to.equal([409, `The name ${site} is taken`]);

        // A deleted site frees its name for an app.
        const freed = `freed-${Date.now().toString(36)}`;
        expect((await call('POST', '/v1/sites', owner.session, { name: freed })).statusCode).to.equal(201);
        expect((await call('DELETE', `/v1/sites/${freed}`, owner.session)).statusCode).to.equal(204);
        expect((await call('POST', '/v1/apps', owner.session, { name: freed })).statusCode).to.equal(201);
    });
});
