import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, collaborate, joinProject, login, register, type TestUser } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { pageText, Visitor } from '../../helpers/dashboard';
import { createSiteFromUpload, siteLive, tarGz } from '../../helpers/sites';
import { testServer, type TestServer } from '../../helpers/server';

// The resource pages: reached from the project, every tab read through the API with the visitor's session, every
// form acting through it, and only the actions the visitor's role allows on offer.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('dashboard resource pages', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
        instance.server.plugins['hostless-jobs'].queue.start();
    });

    after(async () => {
        await instance?.stop();
    });

    const signIn = async (user: TestUser) => {
        const visitor = new Visitor(instance.server);
        await visitor.get('/dashboard/sign-in');
        await visitor.post('/dashboard/sign-in', { email: user.email, password: user.password });
        return visitor;
    };

    const createApp = async (visitor: Visitor, user: TestUser, name: string) => {
        await visitor.get(`/dashboard/projects/${user.projectId}`);
        const res = await visitor.post(`/dashboard/projects/${user.projectId}/apps`, { name, startCommand: 'npm start' });
        expect(res.statusCode).to.equal(302);
        expect(res.headers.location).to.equal(`/dashboard/apps/${name}`);
        return res;
    };

    it('creates an app from the project page, links it there, and shows its page with tabs and actions', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        await createApp(visitor, user, 'page-app');
        const page = await visitor.get('/dashboard/apps/page-app');
        expect(page.statusCode).to.equal(200);
        const text = pageText(page.payload);
        expect(text).to.contain('The app “page-app” is created');
        expect(text).to.contain('page-app app');
        expect(text).to.contain('Live deployment none');
        expect(page.payload).to.contain('href="http://page-app.localhost:3000/"');
        for (const tab of ['deployments', 'logs', 'metrics', 'environment', 'domains', 'cron-jobs', 'processes', 'collaborators']) {
            expect(page.payload).to.contain(`href="/dashboard/apps/page-app/${tab}"`);
        }

        for (const action of ['deploy', 'restart', 'scale-up', 'scale-down']) {
            expect(page.payload).to.contain(`action="/dashboard/apps/page-app/actions/${action}"`);
        }

        expect(page.payload).to.contain('href="/dashboard/apps/page-app/delete"');
        const project = await visitor.get(`/dashboard/projects/${user.projectId}`);
        expect(project.payload).to.contain('href="/dashboard/apps/page-app"');
    });

    it('shows a refused app creation on the project page with the API\'s message', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        await visitor.get(`/dashboard/projects/${user.projectId}`);
        const res = await visitor.post(`/dashboard/projects/${user.projectId}/apps`, { name: 'Not A Name' });
        expect(res.statusCode).to.equal(400);
        expect(pageText(res.payload)).to.contain('"name"');
    });

    it('sets and removes environment variables; a viewer sees names only and no form', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        await createApp(visitor, user, 'env-app');
        await visitor.get('/dashboard/apps/env-app/environment');
        const set = await visitor.post('/dashboard/apps/env-app/environment', { name: 'API_SECRET', value: 'hunter2-value' });
        expect(set.statusCode).to.equal(302);
        const page = await visitor.get('/dashboard/apps/env-app/environment');
        expect(pageText(page.payload)).to.contain('The variable API_SECRET is set');
        expect(page.payload).to.contain('<code>API_SECRET</code>');
        expect(page.payload).to.contain('hunter2-value');

        const viewer = await register(instance.server, 'viewer');
        await joinProject(instance.server, user, user.projectId, { email: viewer.email, session: (await login(instance.server, viewer)).session }, 'viewer');
        const seen = await (await signIn(viewer)).get('/dashboard/apps/env-app/environment');
        expect(seen.statusCode).to.equal(200);
        expect(seen.payload).to.contain('<code>API_SECRET</code>');
        expect(seen.payload).to.not.contain('hunter2-value');
        expect(seen.payload).to.not.contain('action="/dashboard/apps/env-app/environment"');
        const overview = await (await signIn(viewer)).get('/dashboard/apps/env-app');
        expect(overview.payload).to.not.contain('/actions/deploy');
        expect(overview.payload).to.not.contain('/delete"');

        await visitor.get('/dashboard/apps/env-app/environment');
        expect((await visitor.post('/dashboard/apps/env-app/environment/remove', { name: 'API_SECRET' })).statusCode).to.equal(302);
        expect((await call('GET', '/v1/apps/env-app/environment-variables', user.session)).result).to.equal([]);
    });

    it('deploys, shows the deployment live with its logs, timings and configuration, and draws unavailable metrics as such', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        await createApp(visitor, user, 'deploy-app');
        await visitor.get('/dashboard/apps/deploy-app');
        const deployed = await visitor.post('/dashboard/apps/deploy-app/actions/deploy');
        expect(deployed.statusCode).to.equal(302);
        const app = await eventually(async () => (await call('GET', '/v1/apps/deploy-app', user.session)).result, (body: any) => body.liveDeploymentId !== null, 'the app live', 30_000);

        const list = await visitor.get('/dashboard/apps/deploy-app/deployments');
        expect(list.payload).to.contain(`href="/dashboard/apps/deploy-app/deployments/${app.liveDeploymentId}"`);
        expect(pageText(list.payload)).to.contain('live');
        const detail = await visitor.get(`/dashboard/apps/deploy-app/deployments/${app.liveDeploymentId}`);
        const text = pageText(detail.payload);
        expect(text).to.contain('Build log');
        expect(text).to.contain('The records driver keeps state only: no code was fetched or built');
        expect(text).to.contain(`${app.liveDeploymentId} is live (records driver: no process was started)`);
        expect(text).to.contain('"startCommand": "npm start"');
        expect(text).to.match(/Total \d+\.\d s/);

        const logs = await visitor.get('/dashboard/apps/deploy-app/logs?level=info&q=records');
        expect(pageText(logs.payload)).to.contain('is live (records driver');
        expect(logs.payload).to.contain('data-tail="/dashboard/apps/deploy-app/logs/stream?q&#x3D;records&amp;level&#x3D;info"');

        const metrics = await visitor.get('/dashboard/apps/deploy-app/metrics');
        expect(metrics.statusCode).to.equal(200);
        expect((metrics.payload.match(/Unavailable: nothing measures this here/g) ?? []).length).to.equal(4);
        expect(metrics.payload).to.not.contain('class="chart-line"');
        expect(metrics.payload).to.contain('role="img"');
    });

    it('adds a domain with the DNS record to create, and removes it', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        await createApp(visitor, user, 'domain-app');
        await visitor.get('/dashboard/apps/domain-app/domains');
        expect((await visitor.post('/dashboard/apps/domain-app/domains', { domain: 'shop.example.com' })).statusCode).to.equal(302);
        const page = await visitor.get('/dashboard/apps/domain-app/domains');
        const text = pageText(page.payload);
        expect(text).to.contain('shop.example.com pending');
        expect(text).to.contain('Type TXT Name _hostless-challenge.shop.example.com Value hostless-verify=');

        const refused = await visitor.post('/dashboard/apps/domain-app/domains', { domain: 'not a domain' });
        expect(refused.statusCode).to.equal(400);
        expect(pageText(refused.payload)).to.contain('"domain"');

        await visitor.get('/dashboard/apps/domain-app/domains');
        expect((await visitor.post('/dashboard/apps/domain-app/domains/remove', { domain: 'shop.example.com' })).statusCode).to.equal(302);
        expect((await call('GET', '/v1/apps/domain-app/custom-domains', user.session)).result).to.equal([]);
    });

    it('deletes only once the name is typed', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        await createApp(visitor, user, 'gone-app');
        const confirm = await visitor.get('/dashboard/apps/gone-app/delete');
        expect(pageText(confirm.payload)).to.contain('Type gone-app to confirm');
        const wrong = await visitor.post('/dashboard/apps/gone-app/delete', { confirm: 'gone' });
        expect(wrong.statusCode).to.equal(400);
        expect(pageText(wrong.payload)).to.contain('Type the name “gone-app” exactly to confirm.');
        expect((await call('GET', '/v1/apps/gone-app', user.session)).statusCode).to.equal(200);

        const done = await visitor.post('/dashboard/apps/gone-app/delete', { confirm: 'gone-app' });
        expect(done.statusCode).to.equal(302);
        expect(done.headers.location).to.equal(`/dashboard/projects/${user.projectId}`);
        expect((await call('GET', '/v1/apps/gone-app', user.session)).statusCode).to.equal(404);
    });

    it('answers 404 for an unknown kind, tab or action, and for another user\'s app as for a missing one', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        await createApp(visitor, user, 'mine-app');
        expect((await visitor.get('/dashboard/gadgets/mine-app')).statusCode).to.equal(404);
        expect((await visitor.get('/dashboard/apps/mine-app/nothing')).statusCode).to.equal(404);
        expect((await visitor.get('/dashboard/apps/mine-app/runs')).statusCode, 'runs are a cron job\'s tab').to.equal(404);
        await visitor.get('/dashboard/apps/mine-app');
        expect((await visitor.post('/dashboard/apps/mine-app/actions/explode')).statusCode).to.equal(404);

        const stranger = await signIn(await register(instance.server, 'stranger'));
        const foreign = await stranger.get('/dashboard/apps/mine-app');
        const missing = await stranger.get('/dashboard/apps/no-such-app');
        expect(foreign.statusCode).to.equal(404);
        expect(pageText(foreign.payload).replace(/Signed in as \S+/, '')).to.equal(pageText(missing.payload).replace(/Signed in as \S+/, ''));
    });

    it('shows the pages of the other kinds: a worker, a cron job with its runs, a database, a site, a virtual machine', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        expect((await call('POST', '/v1/workers', user.session, { name: 'page-worker', projectId: user.projectId })).statusCode).to.equal(201);
        expect((await call('POST', '/v1/cron-jobs', user.session, { name: 'page-cron', projectId: user.projectId, schedule: '0 3 * * *', startCommand: 'node job.js' })).statusCode).to.equal(201);
        expect((await call('POST', '/v1/databases', user.session, { name: 'page-db', projectId: user.projectId })).statusCode).to.equal(201);

        const worker = await visitor.get('/dashboard/workers/page-worker');
        expect(worker.statusCode).to.equal(200);
        expect(worker.payload).to.not.contain('localhost:3000/"');
        const cron = await visitor.get('/dashboard/cron-jobs/page-cron/runs');
        expect(cron.statusCode).to.equal(200);
        expect(cron.payload).to.contain('action="/dashboard/cron-jobs/page-cron/actions/run"');
        const database = await visitor.get('/dashboard/databases/page-db');
        expect(database.statusCode).to.equal(200);
        expect(database.payload).to.contain('action="/dashboard/databases/page-db/actions/pause"');

        const site = await call('POST', '/v1/sites', user.session, { name: 'page-site', projectId: user.projectId });
        expect(site.statusCode).to.equal(201);
        const siteMetrics = await visitor.get('/dashboard/sites/page-site/metrics');
        expect(siteMetrics.payload).to.contain('Bandwidth');
        expect(siteMetrics.payload).to.contain('Unique visitors');
        expect((siteMetrics.payload.match(/No data in this range/g) ?? []).length, 'the edge measures sites: nothing served yet').to.be.at.least(3);
        const vm = await call('POST', '/v1/virtual-machines', user.session, { name: 'page-vm', projectId: user.projectId, size: 's-1vcpu-1gb', image: 'debian-12', region: 'eu-west' });
        expect(vm.statusCode).to.equal(201);
        const vmPage = await visitor.get(`/dashboard/virtual-machines/${vm.result.id}`);
        expect(vmPage.statusCode).to.equal(200);
        expect(vmPage.payload).to.contain(`action="/dashboard/virtual-machines/${vm.result.id}/actions/stop"`);
        expect((await visitor.get(`/dashboard/virtual-machines/${vm.result.id}/metrics`)).statusCode).to.equal(200);

        const project = await visitor.get(`/dashboard/projects/${user.projectId}`);
        for (const href of ['/dashboard/workers/page-worker', '/dashboard/cron-jobs/page-cron', '/dashboard/databases/page-db', '/dashboard/sites/page-site', `/dashboard/virtual-machines/${vm.result.id}`]) {
            expect(project.payload).to.contain(`href="${href}"`);
        }
    });
    it('removes a collaborator from the collaborators tab; a viewer gets no remove button', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        await createApp(visitor, user, 'collab-app');
        const helper = await register(instance.server, 'helper');
        await collaborate(instance.server, user, '/v1/apps/collab-app', helper, ['view', 'deploy']);
        const tab = await visitor.get('/dashboard/apps/collab-app/collaborators');
        expect(tab.payload).to.contain('action="/dashboard/apps/collab-app/collaborators/remove"');
        expect(pageText(tab.payload)).to.contain(helper.email);

        const removed = await visitor.post('/dashboard/apps/collab-app/collaborators/remove', { email: helper.email });
        expect(removed.statusCode).to.equal(302);
        expect((await call('GET', '/v1/apps/collab-app/collaborators', user.session)).result).to.equal([]);
        expect((await call('GET', '/v1/apps/collab-app', helper.session)).statusCode).to.equal(404);

        await visitor.get('/dashboard/apps/collab-app/collaborators');
        const again = await visitor.post('/dashboard/apps/collab-app/collaborators/remove', { email: helper.email });
        expect(again.statusCode).to.equal(404);

        const viewer = await register(instance.server, 'viewer');
        await joinProject(instance.server, user, user.projectId, viewer, 'viewer');
        const viewerPage = await (await signIn(viewer)).get('/dashboard/apps/collab-app/collaborators');
        expect(viewerPage.statusCode).to.equal(200);
        expect(viewerPage.payload).to.not.contain('/collaborators/remove');
    });

    it('scales an app\'s worker process, and runs, pauses and resumes an app cron job from their tabs', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        await createApp(visitor, user, 'proc-app');
        const process = await call('POST', '/v1/apps/proc-app/worker-processes', user.session, { name: 'queue', command: 'node queue.js' });
        expect(process.statusCode).to.equal(201);
        const tab = await visitor.get('/dashboard/apps/proc-app/processes');
        expect(tab.payload).to.contain(`action="/dashboard/apps/proc-app/processes/${process.result.id}"`);
        expect((await visitor.post(`/dashboard/apps/proc-app/processes/${process.result.id}`, { instances: '2' })).statusCode).to.equal(302);
        expect((await call('GET', `/v1/apps/proc-app/worker-processes/${process.result.id}`, user.session)).result.instances).to.equal(2);
        await visitor.get('/dashboard/apps/proc-app/processes');
        const refused = await visitor.post(`/dashboard/apps/proc-app/processes/${process.result.id}`, { instances: 'lots' });
        expect(refused.statusCode).to.equal(400);
        expect(pageText(refused.payload)).to.contain('"instances"');

        const job = await call('POST', '/v1/apps/proc-app/cron-jobs', user.session, { name: 'nightly', schedule: '0 3 * * *', command: 'node nightly.js' });
        expect(job.statusCode).to.equal(201);
        const jobs = await visitor.get('/dashboard/apps/proc-app/cron-jobs');
        for (const action of ['run', 'pause']) {
            expect(jobs.payload).to.contain(`action="/dashboard/apps/proc-app/cron-jobs/${job.result.id}/${action}"`);
        }

        expect((await visitor.post(`/dashboard/apps/proc-app/cron-jobs/${job.result.id}/pause`)).statusCode).to.equal(302);
        expect((await call('GET', `/v1/apps/proc-app/cron-jobs/${job.result.id}`, user.session)).result.status).to.equal('paused');
        const paused = await visitor.get('/dashboard/apps/proc-app/cron-jobs');
        expect(paused.payload).to.contain(`action="/dashboard/apps/proc-app/cron-jobs/${job.result.id}/resume"`);
        expect((await visitor.post(`/dashboard/apps/proc-app/cron-jobs/${job.result.id}/resume`)).statusCode).to.equal(302);
        expect((await call('GET', `/v1/apps/proc-app/cron-jobs/${job.result.id}`, user.session)).result.status).to.equal('active');

        await visitor.get('/dashboard/apps/proc-app/cron-jobs');
        const run = await visitor.post(`/dashboard/apps/proc-app/cron-jobs/${job.result.id}/run`);
        const runs = (await call('GET', `/v1/apps/proc-app/cron-jobs/${job.result.id}/runs`, user.session)).result;
        if (run.statusCode === 302) {
            expect(runs.length).to.equal(1);
        }
        else {
            expect(run.statusCode, 'a refusal is the API\'s, shown on the tab').to.equal(409);
            expect(runs).to.equal([]);
        }

        await visitor.get('/dashboard/apps/proc-app/cron-jobs');
        expect((await visitor.post(`/dashboard/apps/proc-app/cron-jobs/${job.result.id}/explode`)).statusCode).to.equal(400);
    });

    it('pages the logs tab without repeating or skipping lines that share a time, and the deployments tab by cursor', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        await createApp(visitor, user, 'paged-app');
        const app = (await call('GET', '/v1/apps/paged-app', user.session)).result;
        const { services } = instance.server.plugins['hostless-resources'];
        const base = Date.parse('2026-11-01T00:00:00.000Z');
        // 203 lines, one a second, except lines 1 to 5, which share one time: the first page (200 lines, newest first)
        // ends inside them.
        await services.logs.writeMany(services.knex, Array.from({ length: 203 }, (_, i) => ({
            resourceType: 'app', resourceId: app.id, projectId: user.projectId, stream: 'runtime' as const, level: 'info' as const,
            message: `paged line-${String(i).padStart(3, '0')}`, timestamp: new Date(base + (i >= 1 && i <= 5 ? 5 : i) * 1000).toISOString()
        })));

        const first = await visitor.get('/dashboard/apps/paged-app/logs?q=paged');
        expect(first.payload).to.contain('line-202');
        expect(first.payload).to.contain('line-003');
        expect(first.payload).to.not.contain('line-002');
        expect(first.payload).to.contain('data-tail=');
        const older = /href="(\/dashboard\/apps\/paged-app\/logs\?[^"]*until[^"]*)"/.exec(first.payload)![1].replace(/&amp;/g, '&').replace(/&#x3D;/g, '=');
        expect(older).to.contain('skip=3');
        const second = await visitor.get(older);
        expect(second.statusCode).to.equal(200);
        const shown = second.payload.match(/line-\d{3}/g);
        expect(shown).to.equal(['line-002', 'line-001', 'line-000']);
        expect(second.payload, 'an older page has no live tail').to.not.contain('data-tail=');
        expect(second.payload).to.contain('href="/dashboard/apps/paged-app/logs?q&#x3D;paged"');
        expect(second.payload).to.not.contain('skip&#x3D;');

        for (let i = 0; i < 21; ++i) {
            expect((await call('POST', '/v1/apps/paged-app/deployments/new', user.session, {})).statusCode).to.equal(201);
        }

        const deployments = await visitor.get('/dashboard/apps/paged-app/deployments');
        expect((deployments.payload.match(/<tr>\s*<th scope="row"><a href="\/dashboard\/apps\/paged-app\/deployments\/dep_/g) ?? []).length).to.equal(20);
        const next = /href="(\/dashboard\/apps\/paged-app\/deployments\?cursor&#x3D;[^"]+)"/.exec(deployments.payload)![1].replace(/&#x3D;/g, '=');
        const last = await visitor.get(next);
        expect((last.payload.match(/<tr>\s*<th scope="row"><a href="\/dashboard\/apps\/paged-app\/deployments\/dep_/g) ?? []).length).to.equal(1);
        expect(last.payload).to.contain('Newest deployments');
        expect(last.payload).to.not.contain('Older deployments');
    });
    it('edits a virtual machine\'s firewall rule by rule, resizes it once stopped, and lists a database\'s linked apps', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        const vm = await call('POST', '/v1/virtual-machines', user.session, { name: 'wall-vm', projectId: user.projectId, size: 's-1vcpu-1gb', image: 'debian-12', region: 'eu-west' });
        expect(vm.statusCode).to.equal(201);
        const href = `/dashboard/virtual-machines/${vm.result.id}`;
        const rules = async () => (await call('GET', `/v1/virtual-machines/${vm.result.id}/firewall`, user.session)).result.rules;

        const tab = await visitor.get(`${href}/firewall`);
        expect(tab.statusCode).to.equal(200);
        expect(pageText(tab.payload)).to.contain('Inbound by default: deny');
        expect(tab.payload).to.contain(`action="${href}/firewall/remove"`);
        expect((await visitor.post(`${href}/firewall`, { protocol: 'tcp', ports: '443', source: '0.0.0.0/0', description: 'web' })).statusCode).to.equal(302);
        expect(await rules()).to.equal([
            { protocol: 'tcp', ports: '22', source: '0.0.0.0/0', description: 'SSH' },
            { protocol: 'tcp', ports: '22', source: '::/0', description: 'SSH' },
            { protocol: 'tcp', ports: '443', source: '0.0.0.0/0', description: 'web' }
        ]);

        await visitor.get(`${href}/firewall`);
        const refused = await visitor.post(`${href}/firewall`, { protocol: 'tcp', ports: '8000-80', source: '0.0.0.0/0', description: '' });
        expect(refused.statusCode).to.equal(400);
        expect(pageText(refused.payload)).to.contain('"rules[3].ports"');
        expect(refused.payload, 'the form keeps what was typed').to.contain('value="8000-80"');
        expect((await rules()).length).to.equal(3);

        await visitor.get(`${href}/firewall`);
        expect((await visitor.post(`${href}/firewall/remove`, { protocol: 'tcp', ports: '22', source: '::/0' })).statusCode).to.equal(302);
        expect((await rules()).map((rule: { source: string; ports: string }) => `${rule.ports} ${rule.source}`)).to.equal(['22 0.0.0.0/0', '443 0.0.0.0/0']);
        await visitor.get(`${href}/firewall`);
        const gone = await visitor.post(`${href}/firewall/remove`, { protocol: 'tcp', ports: '22', source: '::/0' });
        expect(gone.statusCode).to.equal(409);
        expect(pageText(gone.payload)).to.contain('There is no rule tcp 22 from ::/0 any more');

        await eventually(async () => (await call('GET', `/v1/virtual-machines/${vm.result.id}`, user.session)).result, (body: any) => body.status === 'running', 'the machine running', 30_000);
        const running = await visitor.get(`${href}/size`);
        expect(pageText(running.payload)).to.contain('Stop the machine to change its size or disk.');
        expect(running.payload).to.contain('<fieldset disabled>');
        expect((await call('POST', `/v1/virtual-machines/${vm.result.id}/stop`, user.session)).statusCode).to.equal(200);
        const stopped = await visitor.get(`${href}/size`);
        expect(stopped.payload).to.not.contain('<fieldset disabled>');
        expect(stopped.payload).to.contain('id="size-s-1vcpu-1gb" checked');
        expect((await visitor.post(`${href}/size`, { size: 's-1vcpu-2gb', diskGiB: '60' })).statusCode).to.equal(302);
        const resized = (await call('GET', `/v1/virtual-machines/${vm.result.id}`, user.session)).result;
        expect([resized.size, resized.diskGiB]).to.equal(['s-1vcpu-2gb', 60]);
        await visitor.get(`${href}/size`);
        const shrink = await visitor.post(`${href}/size`, { size: '', diskGiB: '10' });
        expect(shrink.statusCode).to.equal(409);
        expect(pageText(shrink.payload)).to.contain('A disk can only grow');

        expect((await visitor.get('/dashboard/apps/whatever/firewall')).statusCode).to.equal(404);
        expect((await call('POST', '/v1/databases', user.session, { name: 'linked-db', projectId: user.projectId })).statusCode).to.equal(201);
        const linked = await visitor.get('/dashboard/databases/linked-db/linked-apps');
        expect(linked.statusCode).to.equal(200);
        expect(pageText(linked.payload)).to.contain('No app is linked to this database');
    });
    it('uploads a new version of a site from its deployments tab, checking the form token before the archive', async () => {
        const user = await register(instance.server);
        const visitor = await signIn(user);
        const created = await createSiteFromUpload(instance.server, user, 'upload-site', tarGz([{ name: 'index.html', content: '<h1>one</h1>' }]));
        expect(created.statusCode).to.equal(201);
        await siteLive(instance.server, user, 'upload-site', created.result.deployment.id);

        const tab = await visitor.get('/dashboard/sites/upload-site/deployments');
        expect(tab.payload).to.contain('action="/dashboard/sites/upload-site/upload" enctype="multipart/form-data"');
        const archive = { name: 'archive', filename: 'v2.tar.gz', content: tarGz([{ name: 'index.html', content: '<h1>two</h1>' }]) };
        const forged = await visitor.upload('/dashboard/sites/upload-site/upload', archive, { csrf: 'forged' });
        expect(forged.statusCode).to.equal(403);
        const tokenless = await visitor.upload('/dashboard/sites/upload-site/upload', archive, { csrf: null });
        expect(tokenless.statusCode).to.equal(403);
        expect((await call('GET', '/v1/sites/upload-site/deployments', user.session)).result.length).to.equal(1);

        await visitor.get('/dashboard/sites/upload-site/deployments');
        const uploaded = await visitor.upload('/dashboard/sites/upload-site/upload', archive);
        expect(uploaded.statusCode).to.equal(302);
        expect(uploaded.headers.location).to.equal('/dashboard/sites/upload-site/deployments');
        const deployments = (await call('GET', '/v1/sites/upload-site/deployments', user.session)).result;
        expect(deployments.length).to.equal(2);
        const site = await siteLive(instance.server, user, 'upload-site', deployments[0].id);
        expect(site.liveDeploymentId).to.equal(deployments[0].id);

        await visitor.get('/dashboard/sites/upload-site/deployments');
        const broken = await visitor.upload('/dashboard/sites/upload-site/upload', { ...archive, content: Buffer.from('not an archive') });
        expect(broken.statusCode).to.equal(400);
        expect(pageText(broken.payload)).to.contain('Upload a new version');
        await visitor.get('/dashboard/sites/upload-site/deployments');
        const empty = await visitor.upload('/dashboard/sites/upload-site/upload', { ...archive, filename: '', content: Buffer.alloc(0) });
        expect(empty.statusCode).to.equal(400);
        expect(pageText(empty.payload)).to.contain('Choose a .tar.gz or .zip archive');

        await visitor.get('/dashboard/apps');
        const other = new Visitor(instance.server);
        await other.get('/dashboard/sign-in');
        const signedOut = await other.upload('/dashboard/sites/upload-site/upload', archive);
        expect(signedOut.statusCode).to.equal(302);
        expect(String(signedOut.headers.location)).to.startWith('/dashboard/sign-in');
        expect((await call('GET', '/v1/sites/upload-site/deployments', user.session)).result.length).to.equal(2);
    });
});
