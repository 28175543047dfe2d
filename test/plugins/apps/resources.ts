import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, collaborate, createKey, joinProject, register, type TestUser } from '../../helpers/api';
import { digest } from '../../helpers/db';
import { createApp, deploymentSettled, eventually } from '../../helpers/apps';
import { manualClock } from '../../helpers/clock';
import { fakeDns, type FakeDns } from '../../helpers/fake-dns';
import { testServer, type TestServer } from '../../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('app domains, collaborators, worker processes and cron jobs', () => {

    let instance: TestServer;
    let dns: FakeDns;
    let owner: TestUser;
    const call = caller(() => instance.server);
    const clock = manualClock();
    const scheduler = () => instance.server.plugins['hostless-resources'].services.scheduler;

    before(async () => {
        dns = await fakeDns();
        instance = await testServer({ dnsServers: [dns.address] }, { clock });
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'owner');
    });

    after(async () => {
        await instance?.stop();
        await dns?.stop();
    });

    describe('custom domains', () => {

        it('are pending until their TXT record appears, then verified by the job', async () => {
            const app = await createApp(instance.server, owner);
            const added = await call('POST', `/v1/apps/${app.name}/custom-domains`, owner.session, { domain: 'Shop.Example.COM' });
            expect(added.statusCode).to.equal(201);
            expect(added.result).to.include({ domain: 'shop.example.com', status: 'pending', verifiedAt: null });
            expect(added.result.verification).to.include({ type: 'TXT', name: '_hostless-challenge.shop.example.com' });
            expect(added.result.verification.value).to.match(/^hostless-verify=[0-9A-Za-z]{32}$/);

            const checked = await eventually(async () => (await call('GET', `/v1/apps/${app.name}/custom-domains`, owner.session)).result[0], (domain: any) => !!domain.checkedAt, 'a first check');
            expect(checked).to.include({ status: 'pending', lastError: `No TXT record ${added.result.verification.value} at _hostless-challenge.shop.example.com yet` });

            dns.txt.set('_hostless-challenge.shop.example.com', ['unrelated', added.result.verification.value]);
            const job = await instance.server.app.knex('jobs').where({ type: 'domains.verify' }).orderBy('created_at', 'desc').first();
            await instance.server.app.knex('jobs').where({ id: job.id }).update({ run_at: new Date().toISOString() });   // the retry, due now
            const verified = await eventually(async () => (await call('GET', `/v1/apps/${app.name}/custom-domains`, owner.session)).result[0], (domain: any) => domain.status === 'verified', 'verification');
            expect(verified.verifiedAt).to.be.a.string();
            expect(verified.lastError).to.equal(null);
        });

        it('are claimed once per app, must be names, and are removed by name', async () => {
            const [a, b] = [await createApp(instance.server, owner), await createApp(instance.server, owner)];
            expect((await call('POST', `/v1/apps/${a.name}/custom-domains`, owner.session, { domain: 'api.example.org' })).statusCode).to.equal(201);
            const twice = await call('POST', `/v1/apps/${a.name}/custom-domains`, owner.session, { domain: 'api.example.org' });
            expect(twice.statusCode).to.equal(409);
            expect(twice.result.message).to.equal(`api.example.org is already a custom domain of ${a.name}`);
            for (const domain of ['localhost', '10.0.0.1', 'no spaces.com', '-bad-.example.com']) {
                expect((await call('POST', `/v1/apps/${a.name}/custom-domains`, owner.session, { domain })).statusCode, domain).to.equal(400);
            }

            expect((await call('DELETE', `/v1/apps/${b.name}/custom-domains?domain=api.example.org`, owner.session)).statusCode).to.equal(404);
            expect((await call('DELETE', `/v1/apps/${a.name}/custom-domains?domain=api.example.org`, owner.session)).statusCode).to.equal(204);
            expect((await call('GET', `/v1/apps/${a.name}/custom-domains`, owner.session)).result).to.equal([]);
        });

        it('cannot be squatted: a pending claim blocks nobody and expires, a verified claim wins, and a refusal names no one', async () => {
            const [rival, third] = [await register(instance.server, 'rival'), await register(instance.server, 'third')];
            const mine = await createApp(instance.server, owner);
            const theirs = await createApp(instance.server, rival);
            const pending = await call('POST', `/v1/apps/${mine.name}/custom-domains`, owner.session, { domain: 'shop.example.net' });
            expect(pending.result).to.include({ status: 'pending' });
            expect(Date.parse(pending.result.expiresAt) - Date.parse(pending.result.createdAt)).to.equal(7 * 86_400_000);

            // The rival's claim is not blocked by the pending one, and proving the name makes it theirs.
            const claimed = await call('POST', `/v1/apps/${theirs.name}/custom-domains`, rival.session, { domain: 'shop.example.net' });
            expect(claimed.statusCode).to.equal(201);
            dns.txt.set('_hostless-challenge.shop.example.net', [claimed.result.verification.value]);
            const knex = instance.server.app.knex;
            await knex('jobs').where({ type: 'domains.verify' }).whereIn('status', ['queued']).update({ run_at: new Date().toISOString() });
            await eventually(async () => (await call('GET', `/v1/apps/${theirs.name}/custom-domains`, rival.session)).result[0], (domain: any) => domain.status === 'verified', 'the rival\'s verification');
            const lost = await eventually(async () => (await call('GET', `/v1/apps/${mine.name}/custom-domains`, owner.session)).result[0],
                (domain: any) => domain.lastError === 'shop.example.net was verified for another resource first', 'my claim to be checked');
            expect(lost.status).to.equal('pending');

            const refused = await call('POST', `/v1/apps/${(await createApp(instance.server, third)).name}/custom-domains`, third.session, { domain: 'shop.example.net' });
            expect(refused.statusCode).to.equal(409);
            expect(refused.result.message).to.equal('shop.example.net cannot be added: it is already verified for a resource on this platform');
            expect(refused.payload).to.not.contain(theirs.name);
            expect(refused.payload).to.not.contain(rival.email);

            // A pending claim past its time is expired, and the name can be claimed again.
            await knex('domains').where({ resource_id: mine.id }).update({ expires_at: new Date(Date.now() - 1000).toISOString() });
            expect((await call('GET', `/v1/apps/${mine.name}/custom-domains`, owner.session)).result[0]).to.include({ status: 'expired', expiresAt: null });
            await call('DELETE', `/v1/apps/${theirs.name}/custom-domains?domain=shop.example.net`, rival.session);
            const again = await call('POST', `/v1/apps/${mine.name}/custom-domains`, owner.session, { domain: 'shop.example.net' });
            expect(again.statusCode).to.equal(201);
            expect(again.result.status).to.equal('pending');
        });
    });

    describe('collaborators', () => {

        const collaborators = async (appName: string) => (await call('GET', `/v1/apps/${appName}/collaborators`, owner.session)).result as Array<Record<string, unknown>>;
        const invitationsOf = async (user: TestUser) => (await call('GET', '/v1/users/me/invitations', user.session)).result as Array<{ id: string; resourceName: string }>;

        it('lose their grants and invitations when they join the project, and do not get them back when they leave it', async () => {
            const team = (await call('POST', '/v1/projects', owner.session, { name: 'Grants' })).result;
            const app = await createApp(instance.server, owner, { projectId: team.id, environmentVariables: { SECRET: 'hidden' } });
            const other = await createApp(instance.server, owner, { projectId: team.id });
            const contractor = await register(instance.server, 'contractor');
            await collaborate(instance.server, owner, `/v1/apps/${app.name}`, contractor, ['manage']);
            expect((await call('GET', `/v1/apps/${app.name}`, contractor.session)).statusCode).to.equal(200);
            expect((await call('PATCH', `/v1/apps/${other.name}/collaborators`, owner.session, { email: contractor.email, permissions: ['manage'] })).statusCode).to.equal(202);
            const [pending] = await invitationsOf(contractor);

            await joinProject(instance.server, owner, team.id, contractor, 'viewer');
            expect(await collaborators(app.name)).to.equal([]);
            expect(await collaborators(other.name), 'the invitation to another app of the project ends too').to.equal([]);
            expect((await call('POST', `/v1/users/me/invitations/${pending.id}/accept`, contractor.session)).statusCode).to.equal(404);
            expect((await call('PATCH', `/v1/apps/${app.name}`, contractor.session, { buildCommand: 'evil' })).statusCode, 'a viewer now').to.equal(403);

            expect((await call('DELETE', `/v1/projects/${team.id}/members/${contractor.id}`, owner.session)).statusCode).to.equal(204);
            expect((await call('GET', `/v1/apps/${app.name}`, contractor.session)).statusCode, 'the old grant stays ended').to.equal(404);
            expect((await call('PATCH', `/v1/apps/${app.name}`, contractor.session, { buildCommand: 'evil' })).statusCode).to.equal(404);
            expect((await call('GET', `/v1/apps/${app.name}/environment-variables`, contractor.session)).statusCode).to.equal(404);
            expect((await call('GET', `/v1/apps/${other.name}`, contractor.session)).statusCode).to.equal(404);

            const trail = (await call('GET', '/v1/users/me/security-events', contractor.session)).result;
            const ended = trail.find((event: { type: string }) => event.type === 'collaborator.ended');
            expect(ended.actor).to.equal(contractor.id);
            expect(ended.data).to.include({ projectId: team.id, reason: 'joined the project as a member', resources: [`app:${app.id}`] });
        });

        it('are invited by email, reach the one app once they accept, see nothing else, and act within their permissions', async () => {
            const app = await createApp(instance.server, owner, { environmentVariables: { TOKEN: 'sealed-value' } });
            await createApp(instance.server, owner, { name: 'not-shared-app' });
            const collaborator = await register(instance.server, 'collab');
            const key = await createKey(instance.server, collaborator, ['apps:read', 'apps:write', 'deployments:write']);
            const invited = await call('PATCH', `/v1/apps/${app.name}/collaborators`, owner.session, { email: collaborator.email, permissions: ['view'] });
            expect(invited.statusCode).to.equal(202);
            expect(invited.result).to.equal({ email: collaborator.email, permissions: ['view'], status: 'invited', message: 'Invitation sent if the account exists: it takes effect when they accept it' });
            expect((await call('GET', `/v1/apps/${app.name}`, key.token)).statusCode, 'not before accepting').to.equal(404);
            expect((await call('GET', '/v1/apps', key.token)).result).to.equal([]);
            const listed = await collaborators(app.name);
            expect(listed).to.have.length(1);
            expect(listed[0]).to.include({ userId: collaborator.id, email: collaborator.email, status: 'pending', permissions: ['view'] });

            const [invitation] = await invitationsOf(collaborator);
            expect(invitation).to.include({ resourceType: 'app', resourceName: app.name, projectId: owner.projectId, role: null, permissions: ['view'] });
            expect((await call('POST', `/v1/users/me/invitations/${invitation.id}/accept`, collaborator.session)).statusCode).to.equal(200);
            const [granted] = await collaborators(app.name);
            expect(granted).to.include({ userId: collaborator.id, email: collaborator.email, permissions: ['view'], status: 'active', expiresAt: null });

            expect((await call('GET', '/v1/apps', key.token)).result.map((a: { name: string }) => a.name)).to.equal([app.name]);
            expect((await call('GET', '/v1/apps/not-shared-app', key.token)).statusCode).to.equal(404);
            expect((await call('GET', `/v1/projects/${owner.projectId}`, collaborator.session)).statusCode).to.equal(404);
            expect((await call('GET', `/v1/apps/${app.name}/environment-variables`, collaborator.session)).result[0].value).to.equal(null);

            const denied = await call('POST', `/v1/apps/${app.name}/deployments/new`, key.token, {});
            expect(denied.statusCode).to.equal(403);
            expect(denied.result.message).to.equal('Collaborator permission "deploy" is required for this action');
            expect((await call('POST', `/v1/apps/${app.name}/restart`, key.token)).result.message).to.equal('Collaborator permission "operate" is required for this action');

            const changed = await call('PATCH', `/v1/apps/${app.name}/collaborators`, owner.session, { email: collaborator.email, permissions: ['deploy', 'operate'] });
            expect(changed.statusCode, 'a collaborator\'s permissions change at once').to.equal(200);
            expect(changed.result).to.include({ userId: collaborator.id, permissions: ['deploy', 'operate'], status: 'active' });
            const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, key.token, {});
            expect(deployment.statusCode).to.equal(201);
            await deploymentSettled(instance.server, owner, app.name, deployment.result.id);
            expect((await call('POST', `/v1/apps/${app.name}/restart`, key.token)).statusCode).to.equal(200);
            expect((await call('PATCH', `/v1/apps/${app.name}`, key.token, { environmentVariables: { TOKEN: 'rotated' } })).statusCode, 'operate covers environment variables').to.equal(200);
            expect((await call('GET', `/v1/apps/${app.name}/environment-variables`, collaborator.session)).result[0].value).to.equal('rotated');
            const settings = await call('PATCH', `/v1/apps/${app.name}`, key.token, { startCommand: 'node evil.js' });
            expect(settings.statusCode).to.equal(403);
            expect(settings.result.message).to.equal('Collaborator permission "manage" is required for this action');
            expect((await call('DELETE', `/v1/apps/${app.name}`, collaborator.session)).statusCode).to.equal(403);

            expect((await call('DELETE', `/v1/apps/${app.name}/collaborators/${encodeURIComponent(collaborator.email)}`, owner.session)).statusCode).to.equal(204);
            expect((await call('GET', `/v1/apps/${app.name}`, key.token)).statusCode).to.equal(404);
            const trail = (await call('GET', '/v1/users/me/security-events', collaborator.session)).result.map((event: { type: string }) => event.type);
            expect(trail).to.include(['invitation.sent', 'invitation.accepted', 'collaborator.granted', 'collaborator.removed']);
        });

        it('answer an unknown email as a known one and store nothing for it; refuse a project member to a member, and unknown permissions', async () => {
            const app = await createApp(instance.server, owner);
            const known = await register(instance.server, 'known');
            // The database holds still while the background jobs (deliveries of earlier messages) are paused.
            const unchanged = async <T>(action: () => Promise<T>): Promise<T> => {
                const queue = instance.server.plugins['hostless-jobs'].queue;
                await queue.stop();
                try {
                    const before = await digest(instance.server.app.knex);
                    const result = await action();
                    expect(await digest(instance.server.app.knex), 'nothing stored').to.equal(before);
                    return result;
                }
                finally {
                    queue.start();
                }
            };

            const unknown = await unchanged(() => call('PATCH', `/v1/apps/${app.name}/collaborators`, owner.session, { email: 'nobody@example.test', permissions: ['view'] }));
            const sent = await call('PATCH', `/v1/apps/${app.name}/collaborators`, owner.session, { email: known.email, permissions: ['view'] });
            expect([unknown.statusCode, sent.statusCode]).to.equal([202, 202]);
            expect({ ...unknown.result, email: null }).to.equal({ ...sent.result, email: null });

            const member = await register(instance.server, 'member');
            await joinProject(instance.server, owner, owner.projectId, member, 'developer');
            const refused = await call('PATCH', `/v1/apps/${app.name}/collaborators`, owner.session, { email: member.email, permissions: ['view'] });
            expect(refused.statusCode).to.equal(409);
            expect(refused.result.message).to.equal('That user is a member of the app\'s project: their project role applies');
            expect((await call('PATCH', `/v1/apps/${app.name}/collaborators`, owner.session, { email: member.email, permissions: ['admin'] })).statusCode).to.equal(400);
            expect((await call('DELETE', `/v1/apps/${app.name}/collaborators/${encodeURIComponent(member.email)}`, owner.session)).statusCode).to.equal(404);
            expect((await call('DELETE', `/v1/apps/${app.name}/collaborators/${encodeURIComponent('nobody@example.test')}`, owner.session)).statusCode).to.equal(404);

            // A collaborator who manages the app does not see the project's members: a member is answered as anyone.
            const manager = await register(instance.server, 'manager');
            await collaborate(instance.server, owner, `/v1/apps/${app.name}`, manager, ['manage']);
            const asked = await unchanged(() => call('PATCH', `/v1/apps/${app.name}/collaborators`, manager.session, { email: member.email, permissions: ['view'] }));
            expect(asked.statusCode).to.equal(202);
            expect({ ...asked.result, email: null }).to.equal({ ...unknown.result, email: null });
        });

        it('are withdrawn before they are accepted, and go with their app', async () => {
            const [app, gone] = [await createApp(instance.server, owner), await createApp(instance.server, owner)];
            const grace = await register(instance.server, 'grace');
            for (const name of [app.name, gone.name]) {
                expect((await call('PATCH', `/v1/apps/${name}/collaborators`, owner.session, { email: grace.email, permissions: ['view'] })).statusCode).to.equal(202);
            }

            expect((await invitationsOf(grace)).map((invitation) => invitation.resourceName).sort()).to.equal([app.name, gone.name].sort());
            expect((await call('DELETE', `/v1/apps/${app.name}/collaborators/${encodeURIComponent(grace.email)}`, owner.session)).statusCode).to.equal(204);
            expect((await call('DELETE', `/v1/apps/${gone.name}`, owner.session)).statusCode).to.equal(204);
            expect(await invitationsOf(grace)).to.equal([]);
            const trail = (await call('GET', '/v1/users/me/security-events', grace.session)).result;
            expect(trail[0]).to.include({ type: 'invitation.canceled', actor: owner.id });
        });
    });

    describe('worker processes', () => {

        it('are created, read, changed within the plan and removed, and ship with the next deployment', async () => {
            const app = await createApp(instance.server, owner);
            const created = await call('POST', `/v1/apps/${app.name}/worker-processes`, owner.session, { name: 'queue', command: 'node queue.js' });
            expect(created.statusCode).to.equal(201);
            expect(created.result).to.include({ name: 'queue', command: 'node queue.js', instances: 1, appName: app.name });
            expect((await call('POST', `/v1/apps/${app.name}/worker-processes`, owner.session, { name: 'queue', command: 'x' })).statusCode).to.equal(409);
            expect((await call('PATCH', `/v1/apps/${app.name}/worker-processes/${created.result.id}`, owner.session, { instances: 3 })).statusCode).to.equal(409);
            expect((await call('PATCH', `/v1/apps/${app.name}/worker-processes/${created.result.id}`, owner.session, { instances: 2 })).result.instances).to.equal(2);
            const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
            expect(deployment.result.configuration.processes).to.equal([{ name: 'queue', command: 'node queue.js', instances: 2 }]);
            expect((await call('GET', `/v1/apps/${app.name}/worker-processes/${created.result.id}`, owner.session)).result.instances).to.equal(2);
            expect((await call('DELETE', `/v1/apps/${app.name}/worker-processes/${created.result.id}`, owner.session)).statusCode).to.equal(204);
            expect((await call('GET', `/v1/apps/${app.name}/worker-processes`, owner.session)).result).to.equal([]);
        });
    });

    describe('cron jobs', () => {

        it('are scheduled, run on schedule and on demand, and keep their runs with logs', async () => {
            const app = await createApp(instance.server, owner);
            const bad = await call('POST', `/v1/apps/${app.name}/cron-jobs`, owner.session, { name: 'x', schedule: 'every day', command: 'x' });
            expect(bad.statusCode).to.equal(400);
            expect(bad.result.message).to.equal('"schedule" must have five fields: minute hour day-of-month month day-of-week');

            const created = await call('POST', `/v1/apps/${app.name}/cron-jobs`, owner.session, { name: 'reports', schedule: '*/5 * * * *', command: 'node reports.js' });
            expect(created.statusCode).to.equal(201);
            expect(created.result).to.include({ status: 'active', schedule: '*/5 * * * *' });
            expect(Date.parse(created.result.nextRunAt) % 300_000).to.equal(0);

            // The scheduler's clock reaches nextRunAt: the due time is claimed once, and run.
            clock.set(created.result.nextRunAt);
            expect(await scheduler().tick()).to.equal(1);
            expect(await scheduler().tick()).to.equal(0);
            const scheduled = await eventually(async () => (await call('GET', `/v1/apps/${app.name}/cron-jobs/${created.result.id}/runs`, owner.session)).result,
                (runs: any[]) => runs.length === 1 && runs[0].status === 'recorded', 'the scheduled run');
            expect(scheduled[0]).to.include({ trigger: 'schedule', scheduledFor: created.result.nextRunAt, exitCode: null, driver: 'records' });
            const next = (await call('GET', `/v1/apps/${app.name}/cron-jobs/${created.result.id}`, owner.session)).result;
            expect(Date.parse(next.nextRunAt)).to.be.above(Date.parse(created.result.nextRunAt));

            const manual = await call('POST', `/v1/apps/${app.name}/cron-jobs/${created.result.id}/run`, owner.session);
            expect(manual.statusCode).to.equal(201);
            expect(manual.result).to.include({ trigger: 'manual', status: 'queued' });
            const done = await eventually(async () => (await call('GET', `/v1/apps/${app.name}/cron-jobs/${created.result.id}/runs/${manual.result.id}`, owner.session)).result,
                (run: any) => run.status === 'recorded', 'the manual run');
            expect(done.finishedAt).to.be.a.string();
            const logs = await call('GET', `/v1/apps/${app.name}/cron-jobs/${created.result.id}/runs/${manual.result.id}/logs`, owner.session);
            expect(logs.result.map((line: { message: string }) => line.message)).to.equal([
                `Run of \`node reports.js\` for ${app.name} recorded`, 'The records driver runs no user code: nothing was executed, so there is no exit code'
            ]);
        });

        it('pause clears the next run, resume sets it again, and a deleted job fires no more', async () => {
            const app = await createApp(instance.server, owner);
            const created = await call('POST', `/v1/apps/${app.name}/cron-jobs`, owner.session, { name: 'hourly', schedule: '0 * * * *', command: 'node h.js' });
            const paused = await call('PATCH', `/v1/apps/${app.name}/cron-jobs/${created.result.id}`, owner.session, { status: 'paused' });
            expect(paused.result).to.include({ status: 'paused', nextRunAt: null });
            const resumed = await call('PATCH', `/v1/apps/${app.name}/cron-jobs/${created.result.id}`, owner.session, { status: 'active', schedule: '30 * * * *' });
            expect(new Date(resumed.result.nextRunAt).getUTCMinutes()).to.equal(30);
            expect((await call('DELETE', `/v1/apps/${app.name}/cron-jobs/${created.result.id}`, owner.session)).statusCode).to.equal(204);

            clock.set(resumed.result.nextRunAt);
            clock.advance(3 * 3600_000);
            await scheduler().tick();
            expect(await instance.server.app.knex('cron_runs').where({ job_id: created.result.id })).to.equal([]);
        });
    });
});
