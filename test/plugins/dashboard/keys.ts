import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { SCOPES } from '../../../lib/scopes';
import { scopeRows } from '../../../plugins/dashboard/scope-picker';
import { expiryFrom } from '../../../plugins/dashboard/routes/keys';
import { caller } from '../../helpers/api';
import { pageText, signedUp, type Visitor } from '../../helpers/dashboard';
import { testServer, type TestServer } from '../../helpers/server';

// The API keys pages: the scope picker, creation with the one-time token, the list, and revocation.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('dashboard API keys', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    const createKey = async (visitor: Visitor, form: Record<string, string | string[]>) => {
        await visitor.get('/dashboard/keys/new');
        return visitor.post('/dashboard/keys', form);
    };

    const tokenOf = (html: string) => /id="token" type="text" readonly value="([^"]+)"/.exec(html)?.[1];

    it('offers every scope of the catalogue, by resource, in read, write and delete columns', async () => {
        const { visitor } = await signedUp(instance.server);
        const html = (await visitor.get('/dashboard/keys/new')).payload;
        for (const scope of SCOPES) {
            const id = `scope-${scope.replace(':', '-')}`;
            expect(html, scope).to.contain(`<input type="checkbox" name="scopes" value="${scope}" id="${id}"> <label for="${id}"><code>${scope}</code></label>`);
        }

        const rows = scopeRows(['logs:read']);
        expect(rows.find((row) => row.resource === 'logs')!.cells.map((cell) => cell?.scope ?? null)).to.equal(['logs:read', null, null]);
        expect(rows.find((row) => row.resource === 'logs')!.cells[0]!.checked).to.be.true();
        expect(rows.find((row) => row.resource === 'cron-jobs')!.label).to.equal('Cron jobs');
    });

    it('creates a key with two scopes, shows its token once, and the token works against the API', async () => {
        const { visitor } = await signedUp(instance.server);
        const res = await createKey(visitor, { name: 'deploy bot', scopes: ['projects:read', 'apps:read'], expires: '' });
        expect(res.statusCode).to.equal(201);
        expect(res.headers['cache-control']).to.equal('no-store');
        const text = pageText(res.payload);
        expect(text).to.contain('Copy this token now. It will not be shown again');
        const token = tokenOf(res.payload)!;
        expect(token).to.match(/^svk_[0-9A-Za-z]+_[0-9A-Za-z]+$/);

        const list = await visitor.get('/dashboard/keys');
        const listed = pageText(list.payload);
        expect(listed).to.contain(`deploy bot ${token.split('_').slice(0, 2).join('_')} apps:read projects:read`);   // in catalogue order
        expect(listed).to.match(/UTC Never Never Revoke deploy bot/);
        expect(list.payload).to.not.contain(token.split('_')[2]);

        const projects = await call('GET', '/v1/projects', token);
        expect(projects.statusCode).to.equal(200);
        const introspected = await call('GET', '/v1/auth/introspect', `Bearer ${token}`);
        expect(introspected.result.scopes).to.equal(['apps:read', 'projects:read']);
    });

    it('turns a date into an expiry at the end of that day (UTC), and marks expired keys', async () => {
        expect(expiryFrom('')).to.be.null();
        expect(expiryFrom('2099-01-31')).to.equal('2099-01-31T23:59:59.999Z');
        expect(expiryFrom('2099-01-31T10:00:00Z')).to.equal('2099-01-31T10:00:00Z');

        const { visitor } = await signedUp(instance.server);
        const created = await createKey(visitor, { name: 'short lived', scopes: 'projects:read', expires: '2099-01-31' });
        expect(created.statusCode).to.equal(201);
        expect(pageText(created.payload)).to.contain('Expires 2099-01-31 23:59 UTC');

        await instance.server.app.knex('api_keys').where('name', 'short lived').update({ expires_at: '2020-01-01T00:00:00.000Z' });
        const listed = pageText((await visitor.get('/dashboard/keys')).payload);
        expect(listed).to.contain('2020-01-01 00:00 UTC Expired');
        expect((await call('GET', '/v1/projects', tokenOf(created.payload))).statusCode).to.equal(401);
    });

    it('shows the API\'s validation message and keeps the form as it was', async () => {
        const { visitor } = await signedUp(instance.server);
        const none = await createKey(visitor, { name: 'no scopes', expires: '' });
        expect(none.statusCode).to.equal(400);
        expect(pageText(none.payload)).to.contain('"scopes" must hold at least 1 item');
        expect(none.payload).to.contain('value="no scopes"');

        const past = await createKey(visitor, { name: 'past', scopes: ['apps:read'], expires: '2001-01-01' });
        expect(past.statusCode).to.equal(400);
        expect(pageText(past.payload)).to.contain('"expiresAt" must be in the future');
        expect(past.payload).to.contain('value="apps:read" id="scope-apps-read" checked');
    });

    it('revokes a key after a confirmation page, and the next API call with it is refused', async () => {
        const { visitor } = await signedUp(instance.server);
        const created = await createKey(visitor, { name: 'to revoke', scopes: ['projects:read'] });
        const token = tokenOf(created.payload)!;
        const list = await visitor.get('/dashboard/keys');
        const keyId = /href="\/dashboard\/keys\/(key_[0-9A-Za-z]+)\/revoke"/.exec(list.payload)![1];

        const confirm = await visitor.get(`/dashboard/keys/${keyId}/revoke`);
        expect(confirm.statusCode).to.equal(200);
        expect(pageText(confirm.payload)).to.contain('Revoke “to revoke”?');
        expect((await call('GET', '/v1/projects', token)).statusCode).to.equal(200);

        const revoked = await visitor.post(`/dashboard/keys/${keyId}/revoke`);
        expect(revoked.statusCode).to.equal(302);
        expect(revoked.headers.location).to.equal('/dashboard/keys');
        const after = pageText((await visitor.get('/dashboard/keys')).payload);
        expect(after).to.contain('is revoked: it is refused from its next request');
        expect(after).to.contain('You have no API keys yet.');

        const refused = await call('GET', '/v1/projects', token);
        expect(refused.statusCode).to.equal(401);
        expect(refused.result.message).to.equal('API key has been revoked');
        expect(pageText((await visitor.get('/dashboard/keys')).payload)).to.not.contain('is revoked');
    });

    it('answers 404 for someone else\'s key and for a revoked one, and 400 for a malformed id', async () => {
        const { visitor: owner } = await signedUp(instance.server);
        const { visitor: other } = await signedUp(instance.server);
        await createKey(owner, { name: 'mine', scopes: ['projects:read'] });
        const keyId = /\/dashboard\/keys\/(key_[0-9A-Za-z]+)\/revoke/.exec((await owner.get('/dashboard/keys')).payload)![1];

        expect((await other.get(`/dashboard/keys/${keyId}/revoke`)).statusCode).to.equal(404);
        await other.get('/dashboard/keys');
        const foreign = await other.post(`/dashboard/keys/${keyId}/revoke`);
        expect(foreign.statusCode).to.equal(404);
        expect(pageText(foreign.payload)).to.contain('API key not found');
        expect((await owner.get(`/dashboard/keys/${keyId}/revoke`)).statusCode).to.equal(200);
        expect((await owner.get('/dashboard/keys/not-a-key/revoke')).statusCode).to.equal(400);
    });
});
