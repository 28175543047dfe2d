import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../../helpers/api';
import { multipartBody } from '../../helpers/route-cases';
import { testServer, type TestServer } from '../../helpers/server';
import { edgeRequest, siteLive } from '../../helpers/sites';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

// The visual builder: a versioned document (a stale save is 409), assets, and publishing as a deployment the edge
// serves, with every text escaped.
describe('the visual builder', () => {

    let instance: TestServer;
    let owner: TestUser;
    let port: number;
    const call = caller(() => instance.server);
    const name = `vb-${Date.now().toString(36)}`;

    before(async () => {
        instance = await testServer({}, { start: true });
        instance.server.plugins['hostless-jobs'].queue.start();
        port = instance.server.info.port as number;
        owner = await register(instance.server, 'builder');
    });

    after(async () => {
        await instance?.stop();
    });

    it('creates a site from a document, saves versions, refuses a stale one, and publishes what it saved', async () => {
        const created = await call('POST', '/v1/sites/from-visual-builder', owner.session, {
            name, document: { title: 'Shop <b>', pages: [{ path: '/', title: 'Home', blocks: [{ type: 'heading', text: 'Welcome & hello' }] }] }
        });
        expect(created.statusCode, created.payload).to.equal(201);
        expect(created.result).to.include({ source: 'visual-builder' });
        expect(created.result.deployment).to.include({ trigger: 'publish', driver: 'static' });
        await siteLive(instance.server, owner, name, created.result.deployment.id);
        const first = await edgeRequest(port, `${name}.localhost`, '/');
        expect(first.body.toString()).to.include('<title>Shop &#60;b&#62;</title>');
        expect(first.body.toString()).to.include('<h1>Welcome &#38; hello</h1>');
        expect(first.body.toString()).to.not.include('<script');

        const read = await call('GET', `/v1/sites/${name}/visual-builder/project`, owner.session);
        expect(read.result).to.include({ siteName: name, version: 1 });
        const document = {
            title: 'Shop', theme: { accent: '#aa3300', font: 'serif' },
            pages: [
                { path: '/', title: 'Home', blocks: [{ type: 'image', asset: 'logo.svg', alt: 'Logo' }, { type: 'button', text: 'About us', href: '/about' }] },
                { path: '/about', title: 'About', blocks: [{ type: 'text', text: 'We sell <things>.\n\nSince 2020.' }, { type: 'divider' }] }
            ]
        };
        const saved = await call('PUT', `/v1/sites/${name}/visual-builder/project`, owner.session, { version: 1, document });
        expect(saved.result).to.include({ version: 2 });
        const stale = await call('PUT', `/v1/sites/${name}/visual-builder/project`, owner.session, { version: 1, document });
        expect([stale.statusCode, stale.result.message]).to.equal([409, 'The visual-builder project changed since version 1 (it is at version 2): read it again and reapply your change']);
        const invalid = await call('PUT', `/v1/sites/${name}/visual-builder/project`, owner.session, { version: 2, document: { title: 'x', pages: [{ path: 'about', title: 'x', blocks: [] }] } });
        expect([invalid.statusCode, invalid.result.message]).to.equal([400, '"document.pages[0].path" must be a valid page path such as / or /about']);
        const script = await call('PUT', `/v1/sites/${name}/visual-builder/project`, owner.session, { version: 2, document: { title: 'x', pages: [{ path: '/', title: 'x', blocks: [{ type: 'button', text: 'x', href: 'javascript:alert(1)' }] }] } });
        expect(script.statusCode).to.equal(400);

        const missing = await call('POST', `/v1/sites/${name}/visual-builder/publish`, owner.session);
        expect([missing.statusCode, missing.result.message]).to.equal([409, 'The document uses "logo.svg", which is not among the site\'s assets: upload it first']);

        const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>';
        const form = multipartBody([{ name: 'file', filename: 'Logo.SVG', contentType: 'image/svg+xml', base64: Buffer.from(svg).toString('base64') }]);
        const asset = await call('POST', `/v1/sites/${name}/visual-builder/assets`, owner.session, form.payload, { 'content-type': form.contentType });
        expect(asset.statusCode, asset.payload).to.equal(201);
        expect(asset.result).to.include({ name: 'logo.svg', size: svg.length, contentType: 'image/svg+xml', url: '/assets/logo.svg' });
        expect((await call('GET', `/v1/sites/${name}/visual-builder/assets`, owner.session)).result.map((a: { name: string }) => a.name)).to.equal(['logo.svg']);

        const published = await call('POST', `/v1/sites/${name}/visual-builder/publish`, owner.session);
        expect(published.statusCode).to.equal(201);
        await siteLive(instance.server, owner, name, published.result.id);
        const home = (await edgeRequest(port, `${name}.localhost`, '/')).body.toString();
        expect(home).to.include('<img src="/assets/logo.svg" alt="Logo">');
        expect(home).to.include('<a class="button" href="/about">About us</a>');
        expect(home).to.include('Georgia, serif');
        const about = await edgeRequest(port, `${name}.localhost`, '/about/');
        expect(about.body.toString()).to.include('<p>We sell &#60;things&#62;.</p>\n<p>Since 2020.</p>');
        const logo = await edgeRequest(port, `${name}.localhost`, '/assets/logo.svg');
        expect([logo.status, logo.headers['content-type'], logo.body.toString()]).to.equal([200, 'image/svg+xml', svg]);
    });

    it('answers version 0 and a starter document for a site that never saved one', async () => {
        const plain = await call('POST', '/v1/sites', owner.session, { name: `${name}-plain` });
        const read = await call('GET', `/v1/sites/${plain.result.name}/visual-builder/project`, owner.session);
        expect(read.result).to.include({ version: 0, updatedAt: null });
        expect(read.result.document.pages[0].path).to.equal('/');
        const saved = await call('PUT', `/v1/sites/${plain.result.name}/visual-builder/project`, owner.session, { version: 0, document: read.result.document });
        expect(saved.result.version).to.equal(1);
        expect((await call('PUT', `/v1/sites/${plain.result.name}/visual-builder/project`, owner.session, { version: 0, document: read.result.document })).statusCode).to.equal(409);
    });
});
