import * as Net from 'node:net';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { newId } from '../../../lib/ids';
import { gateMessages } from '../../../plugins/auth/gate';
import { policyMessages } from '../../../plugins/auth/policy';
import { caller, createKey, joinProject, register, type TestUser } from '../../helpers/api';
import { foreignServer, type ForeignServer } from '../../helpers/foreign';

// The precedence of api-contract.md section 2, step by step, on a family the pipeline has never seen (widgets),
// embedded in a foreign server: resolution, roles and collaborators come from the resource catalogue alone.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('access pipeline', () => {

    let host: ForeignServer;
    let owner: TestUser;
    let other: TestUser;
    let viewer: TestUser;
    let collaborator: TestUser;
    let ownerKey: string;

    const call = caller(() => host.server);

    const widget = async (user: TestUser, name: string, projectId = user.projectId) => {
        const res = await call('POST', '/v1/widgets', user.session, { name, projectId });
        expect(res.statusCode, res.payload).to.equal(201);
        return (await host.knex('widgets').where({ name }).first()) as { id: string; name: string; project_id: string };
    };

    const grant = async (widgetRow: { id: string; project_id: string }, user: TestUser, permissions: string[]) => {
        await host.knex('collaborators').where({ resource_id: widgetRow.id, user_id: user.id }).delete();
        await host.knex('collaborators').insert({
            id: newId('col'), resource_type: 'widget', resource_id: widgetRow.id, project_id: widgetRow.project_id, user_id: user.id,
            permissions: JSON.stringify(permissions), created_at: new Date().toISOString(), updated_at: new Date().toISOString()
        });
    };

    before(async () => {
        host = await foreignServer({ start: true });
        owner = await register(host.server, 'owner');
        other = await register(host.server, 'other');
        viewer = await register(host.server, 'viewer');
        collaborator = await register(host.server, 'collab');
        ownerKey = (await createKey(host.server, owner, ['apps:read', 'apps:write'])).token;
        await joinProject(host.server, owner, owner.projectId, viewer, 'viewer');
    });

    after(async () => {
        await host?.stop();
    });

    describe('step 0: two Authorization headers', () => {

        it('answers 400 before anything else, read from the raw headers', async () => {
            const status = await new Promise<{ code: number; body: string }>((resolve, reject) => {
                // Written by hand on a socket: an HTTP client would merge or refuse the second header.
                const socket = Net.connect(host.server.info.port as number, '127.0.0.1', () => {
                    socket.write(`GET /v1/widgets HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${ownerKey}\r\nAuthorization: Bearer other\r\nConnection: close\r\n\r\n`);
                });
                let raw = '';
                socket.on('data', (chunk: Buffer) => raw += chunk.toString());
                socket.on('end', () => resolve({ code: Number(raw.split(' ')[1]), body: raw.slice(raw.indexOf('\r\n\r\n') + 4) }));
                socket.on('error', reject);
            });
            expect(status.code).to.equal(400);
            expect(JSON.parse(status.body)).to.equal({ statusCode: 400, error: 'Bad Request', message: 'Only one Authorization header is allowed' });
        });

        it('accepts one header, whatever its case', async () => {
            const res = await call('GET', '/v1/widgets', ownerKey);
            expect(res.statusCode).to.equal(200);
        });
    });

    describe('step 1: credentials', () => {

        it('refuses a credential in the query string: only the header counts', async () => {
            const res = await call('GET', `/v1/widgets?api_key=${ownerKey}`);
            expect(res.statusCode).to.equal(401);
        });

        it('refuses the session of a user disabled since, and their keys, at the next request', async () => {
            const user = await register(host.server, 'to-disable');
            const key = (await createKey(host.server, user, ['apps:read'])).token;
            expect((await call('GET', '/v1/widgets', key)).statusCode).to.equal(200);
            await host.knex('users').where({ id: user.id }).update({ disabled_at: new Date().toISOString() });
            for (const credential of [key, user.session]) {
                const res = await call('GET', '/v1/widgets', credential);
                expect(res.statusCode).to.equal(401);
                expect(res.result.message).to.equal('Account is disabled');
            }
        });

        it('refuses a session JWT signed with another secret or another algorithm', async () => {
            const [header, payload] = owner.accessToken.split('.');
            const forged = `${header}.${payload}.${Buffer.from('not the signature').toString('base64url')}`;
            expect((await call('GET', '/v1/widgets', `Bearer ${forged}`)).statusCode).to.equal(401);
            const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'session+jwt' })).toString('base64url')}.${payload}.`;
            expect((await call('GET', '/v1/widgets', `Bearer ${none}`)).statusCode).to.equal(401);
        });
    });

    describe('steps 2 and 3: the gate inside authenticate', () => {

        it('refuses an API key on an admin route as on a session route', async () => {
            const res = await call('GET', '/v1/widgets-admin', ownerKey);
            expect(res.statusCode).to.equal(403);
            expect(res.result.message).to.equal(gateMessages.sessionOnly);
        });

        it('refuses a session of a user who is not a platform admin, and admits an admin', async () => {
            const refused = await call('GET', '/v1/widgets-admin', owner.session);
            expect(refused.statusCode).to.equal(403);
            expect(refused.result.message).to.equal(gateMessages.adminOnly);
            await host.knex('users').where({ id: other.id }).update({ admin_since: new Date().toISOString() });
            const admitted = await call('GET', '/v1/widgets-admin', other.session);
            expect(admitted.statusCode).to.equal(200);
            await host.knex('users').where({ id: other.id }).update({ admin_since: null });
            expect((await call('GET', '/v1/widgets-admin', other.session)).statusCode).to.equal(403);
        });

        it('answers a missing scope before a body too large, of the wrong type or malformed', async () => {
            const readOnly = (await createKey(host.server, owner, ['apps:read'])).token;
            const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
            for (const [payload, type] of [[big, 'application/json'], ['name=x', 'text/plain'], ['{"name":', 'application/json']]) {
                const res = await call('POST', '/v1/widgets', readOnly, payload, { 'content-type': type });
                expect(res.statusCode).to.equal(403);
                expect(res.result.message).to.equal('Missing required scope(s): apps:write');
            }
        });
    });

    describe('step 4: the body and its validation', () => {

        it('answers 413 for a body over the limit, 415 for another content type, 400 for malformed JSON', async () => {
            const big = await call('POST', '/v1/widgets', ownerKey, JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }), { 'content-type': 'application/json' });
            expect(big.statusCode).to.equal(413);
            const text = await call('POST', '/v1/widgets', ownerKey, 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
            expect(text.statusCode).to.equal(415);
            const broken = await call('POST', '/v1/widgets', ownerKey, '{"name":', { 'content-type': 'application/json' });
            expect(broken.statusCode).to.equal(400);
            expect(broken.result).to.equal({ statusCode: 400, error: 'Bad Request', message: 'Invalid request payload JSON format' });
        });

        it('says in a 415 which content type to send: JSON, or multipart/form-data where the row takes uploads', async () => {
            for (const headers of [{ 'content-type': 'text/plain' }, { 'content-type': 'application/x-www-form-urlencoded' }] as Record<string, string>[]) {
                const res = await call('POST', '/v1/widgets', ownerKey, 'name=x', headers);
                expect(res.statusCode).to.equal(415);
                expect(res.result.message).to.equal('The request body must be application/json: send it with the header Content-Type: application/json');
            }

            await widget(owner, 'uploads');
            const json = await call('POST', '/v1/widgets/uploads/upload', ownerKey, { file: 'x' });
            expect(json.statusCode).to.equal(415);
            expect(json.result.message).to.equal('The request body must be multipart/form-data: send it with the header Content-Type: multipart/form-data');
            const boundary = 'b0undary';
            const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`;
            const uploaded = await call('POST', '/v1/widgets/uploads/upload', ownerKey, multipart, { 'content-type': `multipart/form-data; boundary=${boundary}` });
            expect(uploaded.statusCode).to.equal(200);
            expect(uploaded.result).to.equal({ bytes: 5 });
        });

        it('says what is wrong with a body that changes nothing or is not an object, in words about the body', async () => {
            await widget(owner, 'patched');
            const empty = await call('PATCH', '/v1/widgets/patched', ownerKey, {});
            expect(empty.statusCode).to.equal(400);
            expect(empty.result.message).to.equal('The request body must change at least one field');
            const list = await call('POST', '/v1/widgets', ownerKey, [{ name: 'x' }]);
            expect(list.result.message).to.equal('The request body must be an object');
        });

        it('names the offending field and never echoes its value', async () => {
            const res = await call('POST', '/v1/widgets', ownerKey, { name: 'Not A Label svk_secretish', projectId: owner.projectId });
            expect(res.statusCode).to.equal(400);
            expect(res.result.message).to.equal('"name" is not in the accepted format');
        });

        it('refuses unknown keys and prototype poisoning', async () => {
            const unknown = await call('POST', '/v1/widgets', ownerKey, { name: 'ok', projectId: owner.projectId, ownerId: 'me' });
            expect(unknown.statusCode).to.equal(400);
            expect(unknown.result.message).to.equal('"ownerId" is not allowed');
            const proto = await call('POST', '/v1/widgets', ownerKey, `{"name":"ok","projectId":"${owner.projectId}","__proto__":{"admin":true}}`, { 'content-type': 'application/json' });
            expect(proto.statusCode).to.equal(400);
            const ctor = await call('POST', '/v1/widgets', ownerKey, { name: 'ok', projectId: owner.projectId, constructor: { prototype: { admin: true } } });
            expect(ctor.statusCode).to.equal(400);
        });

        it('requires projectId on a create made with an API key, and uses the personal project for a session', async () => {
            const keyed = await call('POST', '/v1/widgets', ownerKey, { name: 'no-project' });
            expect(keyed.statusCode).to.equal(400);
            expect(keyed.result.message).to.equal(policyMessages.projectRequired);
            const session = await call('POST', '/v1/widgets', owner.session, { name: 'personal-widget' });
            expect(session.statusCode).to.equal(201);
            expect(session.result.projectId).to.equal(owner.projectId);
        });
    });

    describe('steps 5 to 8: project, resource, role and collaborator', () => {

        it('answers 404 for another user\'s widget, byte for byte as for a missing one', async () => {
            await widget(other, 'others-widget');
            const foreign = await call('GET', '/v1/widgets/others-widget', ownerKey);
            const missing = await call('GET', '/v1/widgets/no-such-widget', ownerKey);
            expect(foreign.statusCode).to.equal(404);
            expect(foreign.payload).to.equal(missing.payload);
            expect(foreign.result.message).to.equal('Widget not found');
        });

        it('answers 404 for a create in another user\'s project', async () => {
            const res = await call('POST', '/v1/widgets', ownerKey, { name: 'intruder', projectId: other.projectId });
            expect(res.statusCode).to.equal(404);
            expect(await host.knex('widgets').where({ name: 'intruder' }).first()).to.not.exist();
        });

        it('answers 403 when projectId names another reachable project than the resource\'s', async () => {
            await widget(owner, 'in-personal');
            const team = await call('POST', '/v1/projects', owner.session, { name: 'Team' });
            const res = await call('GET', `/v1/widgets/in-personal?projectId=${team.result.id}`, ownerKey);
            expect(res.statusCode).to.equal(403);
            expect(res.result.message).to.equal(policyMessages.otherProject);
            const same = await call('GET', `/v1/widgets/in-personal?projectId=${owner.projectId}`, ownerKey);
            expect(same.statusCode).to.equal(200);
            const unreachable = await call('GET', `/v1/widgets/in-personal?projectId=${other.projectId}`, ownerKey);
            expect(unreachable.statusCode).to.equal(404);
        });

        it('lets a viewer read and refuses their changes, whatever their key\'s scopes', async () => {
            await widget(owner, 'viewed');
            const key = (await createKey(host.server, viewer, ['apps:read', 'apps:write'])).token;
            expect((await call('GET', '/v1/widgets/viewed', key)).statusCode).to.equal(200);
            const res = await call('POST', '/v1/widgets/viewed/restart', key);
            expect(res.statusCode).to.equal(403);
            expect(res.result.message).to.equal(policyMessages.role('developer'));
        });

        it('applies a demotion at the next request, without a new key', async () => {
            const dev = await register(host.server, 'dev');
            await joinProject(host.server, owner, owner.projectId, dev, 'developer');
            const key = (await createKey(host.server, dev, ['apps:write'])).token;
            await widget(owner, 'demoted');
            expect((await call('POST', '/v1/widgets/demoted/restart', key)).statusCode).to.equal(200);
            await call('PATCH', `/v1/projects/${owner.projectId}/members/${dev.id}`, owner.session, { role: 'viewer' });
            expect((await call('POST', '/v1/widgets/demoted/restart', key)).statusCode).to.equal(403);
        });

        it('lets a collaborator reach the one widget granted, with its permissions only', async () => {
            const granted = await widget(owner, 'shared');
            await widget(owner, 'not-shared');
            await grant(granted, collaborator, ['view']);
            const key = (await createKey(host.server, collaborator, ['apps:read', 'apps:write'])).token;

            const read = await call('GET', '/v1/widgets/shared', key);
            expect(read.statusCode).to.equal(200);
            expect(read.result).to.include({ role: null, permissions: ['view'] });
            const restart = await call('POST', '/v1/widgets/shared/restart', key);
            expect(restart.statusCode).to.equal(403);
            expect(restart.result.message).to.equal(policyMessages.collaborator('operate'));

            await grant(granted, collaborator, ['view', 'operate']);
            expect((await call('POST', '/v1/widgets/shared/restart', key)).statusCode).to.equal(200);
            const patch = await call('PATCH', '/v1/widgets/shared', key, { label: 'x' });
            expect(patch.statusCode).to.equal(403);
            expect(patch.result.message).to.equal(policyMessages.collaborator('manage'));

            expect((await call('GET', '/v1/widgets/not-shared', key)).statusCode).to.equal(404);
            expect((await call('GET', `/v1/projects/${owner.projectId}`, collaborator.session)).statusCode).to.equal(404);
            const listed = await call('GET', '/v1/widgets', key);
            expect(listed.result.map((w: { name: string }) => w.name)).to.contain('shared').and.to.not.contain('not-shared');
        });

        it('resolves a nested resource only under its own parent', async () => {
            const a = await widget(owner, 'parent-a');
            const b = await widget(owner, 'parent-b');
            await host.knex('gadgets').insert({ id: 'gadget-1', widget_id: a.id, project_id: a.project_id });
            expect((await call('GET', '/v1/widgets/parent-a/gadgets/gadget-1', ownerKey)).statusCode).to.equal(200);
            const wrongParent = await call('GET', `/v1/widgets/${b.name}/gadgets/gadget-1`, ownerKey);
            expect(wrongParent.statusCode).to.equal(404);
            expect(wrongParent.result.message).to.equal('Gadget not found');
            expect((await call('GET', '/v1/widgets/parent-a/gadgets/gadget-1', other.session)).result.message).to.equal('Widget not found');
        });
    });

    describe('other modes and errors', () => {

        it('runs a webhook route\'s signature check instead of a credential', async () => {
            const unsigned = await call('POST', '/v1/widgets-hook', undefined, {});
            expect(unsigned.statusCode).to.equal(401);
            const signed = await call('POST', '/v1/widgets-hook', undefined, {}, { 'x-signature': 'valid' });
            expect(signed.statusCode).to.equal(200);
        });

        it('answers an unknown route with the Boom shape', async () => {
            const res = await call('GET', '/v1/nothing-here', ownerKey);
            expect(res.statusCode).to.equal(404);
            expect(res.result).to.equal({ statusCode: 404, error: 'Not Found', message: 'Not Found' });
        });

        it('answers a failure with a 500 that leaks nothing', async () => {
            const res = await call('GET', '/v1/widgets-boom', ownerKey);
            expect(res.statusCode).to.equal(500);
            expect(res.result).to.equal({ statusCode: 500, error: 'Internal Server Error', message: 'An internal server error occurred' });
            expect(res.payload).to.not.include('svk_').and.to.not.include('exploded');
        });

        it('leaves the host\'s own routes alone', async () => {
            const res = await call('GET', '/host/own');
            expect(res.statusCode).to.equal(200);
            expect(res.result).to.equal({ host: true });
        });
    });
});
