import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, createKey, register, type TestUser } from '../helpers/api';
import { createApp, deploymentSettled, eventually } from '../helpers/apps';
import { dump } from '../helpers/db';
import { fakeSlack, type FakeSlack } from '../helpers/fake-slack';
import { testServer, type TestServer } from '../helpers/server';

// Integrations through the API: the catalogue, Slack's configuration with a webhook URL that is never shown again,
// a test message, and the delivery of deployment events to a fake Slack on 127.0.0.1 by the queue's job: exactly one
// delivery per event, retried with backoff while Slack answers 5xx, every attempt recorded without the URL's secret.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

describe('integrations', () => {

    let slack: FakeSlack;
    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);
    const knex = () => instance.server.app.knex;
    const base = () => `/v1/projects/${owner.projectId}/integrations`;

    before(async () => {
        slack = await fakeSlack();
        instance = await testServer({ outbound: { allowlist: ['127.0.0.1'] } });
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'slack-owner');
    });

    after(async () => {
        await instance?.stop();
        await slack?.stop();
    });

    it('offers Slack in the catalogue, with the events it can deliver', async () => {
        const res = await call('GET', '/v1/integrations/available', (await createKey(instance.server, owner, ['integrations:read'])).token);
        expect(res.statusCode).to.equal(200);
        expect(res.result).to.have.length(1);
        expect(res.result[0]).to.include({ type: 'slack', name: 'Slack', webhookHosts: ['hooks.slack.com', '127.0.0.1'] });
        expect(res.result[0].events.map((event: { type: string }) => event.type)).to.include(['deployment.live', 'deployment.failed', 'cron-run.failed', 'database.ready']);
    });

    it('configures Slack: the webhook URL is sealed and shown only without its secret path', async () => {
        const created = await call('POST', `${base()}/slack`, (await createKey(instance.server, owner, ['integrations:write'])).token, { webhookUrl: slack.webhook, channel: '#deploys' });
        expect(created.statusCode, created.payload).to.equal(201);
        expect(created.result).to.include({ type: 'slack', name: 'slack', projectId: owner.projectId, status: 'active', channel: '#deploys', webhookUrl: `${slack.url}/services/…`, recentAttempts: [] });
        expect(created.result.events).to.include(['deployment.live', 'deployment.failed']);
        expect(created.payload).to.not.include(slack.secret);
        expect(JSON.stringify(await dump(knex()))).to.not.include(slack.secret);

        expect((await call('POST', `${base()}/slack`, owner.session, { webhookUrl: slack.webhook })).statusCode).to.equal(409);
        const listed = await call('GET', base(), owner.session);
        expect(listed.result.map((integration: { type: string }) => integration.type)).to.equal(['slack']);
        expect(listed.payload).to.not.include(slack.secret);
    });

    it('refuses a webhook URL that is not https on an allowed host, and unknown events, naming the field', async () => {
        const team = (await call('POST', '/v1/projects', owner.session, { name: 'Webhook rules' })).result;
        const post = (body: object) => call('POST', `/v1/projects/${team.id}/integrations/slack`, owner.session, body);
        const refused = async (body: object, message: string) => {
            const res = await post(body);
            expect(res.statusCode, JSON.stringify(body)).to.equal(400);
            expect(res.result.message).to.equal(message);
            expect(res.payload).to.not.include('T0001');
        };

        await refused({ webhookUrl: 'https://evil.example.com/services/T0001/B0001/x' }, '"webhookUrl" must be on an allowed host: hooks.slack.com, 127.0.0.1');
        await refused({ webhookUrl: 'http://hooks.slack.com/services/T0001/B0001/x' }, '"webhookUrl" must be an https URL');
        await refused({ webhookUrl: 'https://user:pw@hooks.slack.com/services/T0001/B0001/x' }, '"webhookUrl" must not hold a user name or password');
        await refused({ webhookUrl: 'not a url' }, '"webhookUrl" must be a URL such as https://hooks.slack.com/services/...');
        await refused({ webhookUrl: 'https://hooks.slack.com/' }, '"webhookUrl" must be the whole incoming webhook URL Slack gave you');
        await refused({ webhookUrl: slack.webhook, events: ['deployment.exploded'] }, '"events[0]" must be one of deployment.live, deployment.failed, cron-run.succeeded, cron-run.failed, database.ready, database.failed, database.deleted');
        expect((await post({ webhookUrl: 'https://hooks.slack.com/services/T0001/B0001/x', channel: '#ops' })).statusCode).to.equal(201);
    });

    it('takes plain http to a loopback address only where the configuration says so, which only tests do', async () => {
        const strict = await testServer({ slack: { webhookHosts: ['hooks.slack.com', '127.0.0.1'], allowHttpLoopback: false } });
        try {
            const user = await register(strict.server, 'strict');
            const res = await strict.server.inject({ method: 'POST', url: `/v1/projects/${user.projectId}/integrations/slack`, headers: { authorization: user.session }, payload: { webhookUrl: slack.webhook } });
            expect(res.statusCode).to.equal(400);
            expect((res.result as { message: string }).message).to.equal('"webhookUrl" must be an https URL');
        }
        finally {
            await strict.stop();
        }
    });

    it('sends a real test message, recorded as an attempt; Slack\'s refusal is 502 with its words', async () => {
        const sent = await call('POST', `${base()}/slack/test`, owner.session);
        expect(sent.statusCode, sent.payload).to.equal(200);
        expect(sent.result).to.include({ delivered: true, responseCode: 200, response: 'ok' });
        expect(slack.received.at(-1)!.body).to.include({ channel: '#deploys' });
        expect(slack.received.at(-1)!.body.text).to.include('Hostless can post to this channel');

        slack.answers.push({ status: 404, body: 'no_service' });
        const refused = await call('POST', `${base()}/slack/test`, owner.session);
        expect(refused.statusCode).to.equal(502);
        expect(refused.result.message).to.equal('Slack did not take the test message: 404 no_service');
        const attempts = (await call('GET', base(), owner.session)).result[0].recentAttempts;
        expect(attempts.map((attempt: { event: string; outcome: string; responseCode: number }) => [attempt.event, attempt.outcome, attempt.responseCode])).to.equal([['test', 'failed', 404], ['test', 'delivered', 200]]);
        await knex()('integration_deliveries').delete();
        slack.received.length = 0;
    });

    it('delivers a deployment going live exactly once', async () => {
        const app = await createApp(instance.server, owner);
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        await deploymentSettled(instance.server, owner, app.name, deployment.result.id);
        const delivered = await eventually(() => knex()('integration_deliveries').select(), (rows) => rows.length === 1 && rows[0].status === 'delivered', 'the delivery');
        expect(delivered[0]).to.include({ event_type: 'deployment.live', attempts: 1 });
        expect(slack.received).to.have.length(1);
        expect(slack.received[0].body.text).to.include(`A deployment went live: app *${app.name}* (deployment \`${deployment.result.id}\``);
        expect(slack.received[0].body.channel).to.equal('#deploys');

        // Nothing more arrives: a second look after the queue is idle finds the same single delivery.
        await eventually(async () => (await knex()('jobs').whereIn('status', ['queued', 'running']).where('type', 'integrations.deliver')).length, (busy) => busy === 0, 'an idle queue');
        expect(slack.received).to.have.length(1);
        expect(await knex()('integration_deliveries')).to.have.length(1);
    });

    it('attempts again after Slack answers 500 once, and records each attempt without the URL\'s secret', async () => {
        await knex()('integration_deliveries').delete();
        slack.received.length = 0;
        slack.answers.push({ status: 500, body: 'internal_error' });
        const app = await createApp(instance.server, owner);
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        await deploymentSettled(instance.server, owner, app.name, deployment.result.id);
        const [delivery] = await eventually(() => knex()('integration_deliveries').select(), (rows) => rows.length === 1 && rows[0].status === 'delivered', 'the delivery after a retry', 20_000);
        expect(delivery).to.include({ event_type: 'deployment.live', attempts: 2 });
        expect(slack.received).to.have.length(2);
        expect(slack.received[0].body).to.equal(slack.received[1].body);

        const attempts = await knex()('integration_attempts').where({ delivery_id: delivery.id }).orderBy('attempted_at');
        expect(attempts.map((attempt: { outcome: string; response_code: number }) => [attempt.outcome, Number(attempt.response_code)])).to.equal([['failed', 500], ['delivered', 200]]);
        expect(attempts[1].attempted_at > attempts[0].attempted_at).to.be.true();
        const records = JSON.stringify({ delivery, attempts, jobs: await knex()('jobs').where('type', 'integrations.deliver') });
        expect(records).to.not.include(slack.secret);
        expect(records).to.not.include('/services/T0001');
        expect(instance.logs.join('')).to.not.include(slack.secret);
        const listed = await call('GET', base(), owner.session);
        expect(listed.result[0].recentAttempts.slice(0, 2).map((attempt: { outcome: string; responseCode: number }) => [attempt.outcome, attempt.responseCode])).to.equal([['delivered', 200], ['failed', 500]]);
    });

    it('gives up at once when Slack refuses for good (the webhook was removed)', async () => {
        await knex()('integration_deliveries').delete();
        slack.received.length = 0;
        slack.answers.push({ status: 404, body: 'no_service' });
        const app = await createApp(instance.server, owner);
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        await deploymentSettled(instance.server, owner, app.name, deployment.result.id);
        const [delivery] = await eventually(() => knex()('integration_deliveries').select(), (rows) => rows.length === 1 && rows[0].status !== 'queued', 'the refused delivery');
        expect(delivery).to.include({ status: 'failed', attempts: 1 });
        expect(slack.received).to.have.length(1);
    });

    it('sends only the events chosen, and stops when the integration is removed', async () => {
        await knex()('integration_deliveries').delete();
        slack.received.length = 0;
        const changed = await call('PUT', `${base()}/slack`, owner.session, { events: ['deployment.failed'], channel: null });
        expect(changed.statusCode, changed.payload).to.equal(200);
        expect(changed.result).to.include({ events: ['deployment.failed'], channel: null });
        expect((await call('PUT', `${base()}/slack`, owner.session, {})).statusCode).to.equal(400);

        const app = await createApp(instance.server, owner);
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, owner.session, {});
        await deploymentSettled(instance.server, owner, app.name, deployment.result.id);
        expect(await knex()('integration_deliveries')).to.equal([]);

        expect((await call('DELETE', `${base()}/slack`, owner.session)).statusCode).to.equal(204);
        expect((await call('DELETE', `${base()}/slack`, owner.session)).statusCode).to.equal(404);
        expect((await call('PUT', `${base()}/slack`, owner.session, { channel: '#x' })).statusCode).to.equal(404);
        expect((await call('POST', `${base()}/slack/test`, owner.session)).statusCode).to.equal(404);
        expect(await knex()('integration_attempts').whereIn('integration_id', knex()('integrations').select('id'))).to.equal([]);
    });

    it('writes deliveries only with a committed change: an event in a transaction rolled back leaves none', async () => {
        await call('POST', `${base()}/slack`, owner.session, { webhookUrl: slack.webhook });
        const events = instance.server.plugins['hostless-events'].events;
        await expect(knex().transaction(async (trx) => {
            await events.emit(trx, { type: 'database.ready', projectId: owner.projectId, resource: { type: 'database', id: 'db_1', name: 'main' } });
            throw new Error('the change failed');
        })).to.reject('the change failed');
        expect(await knex()('integration_deliveries')).to.equal([]);

        await knex().transaction((trx) => events.emit(trx, { type: 'database.ready', projectId: owner.projectId, resource: { type: 'database', id: 'db_1', name: 'main' } }));
        await eventually(() => knex()('integration_deliveries').select(), (rows) => rows.length === 1 && rows[0].status === 'delivered', 'the database event');
        expect(slack.received.at(-1)!.body.text).to.include('A database is ready to accept connections: database *main*');
    });

    it('keeps attempts and finished deliveries seven days', async () => {
        const old = new Date(Date.now() - 8 * 24 * 3600_000).toISOString();
        await knex()('integration_attempts').update({ attempted_at: old });
        await knex()('integration_deliveries').update({ created_at: old });
        const recent = await call('POST', `${base()}/slack/test`, owner.session);
        expect(recent.statusCode).to.equal(200);
        const pruned = await instance.server.plugins['hostless-integrations'].integrations.prune();
        expect(pruned).to.equal({ attempts: 1, deliveries: 1 });
        expect(await knex()('integration_attempts')).to.have.length(1);
    });
});
