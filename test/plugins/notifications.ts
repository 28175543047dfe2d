import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type { Server } from '@hapi/hapi';

import { parseApiKey } from '../../lib/api-key-token';
import { listNotifications } from '../../lib/notifications/reader';
import { pruneNotifications } from '../../lib/notifications/retention';
import { runCli } from '../../manifest/cli';
import { caller, createKey, joinProject, login, register, type TestUser } from '../helpers/api';
import { eventually } from '../helpers/apps';
import { testServer, type TestServer } from '../helpers/server';
import { smtpSink, type SmtpSink } from '../helpers/smtp-sink';

// The outbox against a real SMTP server on 127.0.0.1: one email per notification, refusals retried with the queue's
// backoff, every attempt recorded, nothing sent without SMTP_URL (recorded) or to a user who switched it off.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

interface MessageRow {
    id: string;
    type: string;
    status: string;
    subject: string;
    body: string;
}

const messagesOf = (server: Server, userId: string): Promise<MessageRow[]> =>
    server.app.knex('notifications').where({ user_id: userId }).orderBy('created_at');
const attemptsOf = (server: Server, notificationId: string): Promise<Array<{ outcome: string; response_code: number | null; response: string }>> =>
    server.app.knex('notification_attempts').where({ notification_id: notificationId }).orderBy('attempted_at');

const deliveryJob = (server: Server, notificationId: string) =>
    server.app.knex('jobs').where({ type: 'notifications.deliver' }).whereRaw('payload like ?', [`%${notificationId}%`]).first();

/** The user's only message of a type, once its delivery is over. */
async function settled(server: Server, user: TestUser, type: string): Promise<MessageRow> {
    const rows = await eventually(async () => (await messagesOf(server, user.id)).filter((row) => row.type === type),
        (found) => found.length > 0 && found.every((row) => row.status !== 'queued'), `${type} to be delivered`, 15_000);
    expect(rows).to.have.length(1);
    return rows[0];
}

const mailsTo = (sink: SmtpSink, email: string) => sink.received.filter((mail) => mail.envelopeTo.includes(email));
const smtpConfig = (sink: SmtpSink) => ({ notifications: { smtpUrl: sink.url, from: 'Hostless <no-reply@hostless.test>', retentionDays: 90 } });

describe('notifications', () => {

    let sink: SmtpSink;
    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        sink = await smtpSink();
        instance = await testServer(smtpConfig(sink));
        instance.server.plugins['hostless-jobs'].queue.start();
    });

    after(async () => {
        await instance?.stop();
        await sink?.stop();
    });

    it('sends exactly one email for a new API key, naming the key and its prefix and never its token', async () => {
        const user = await register(instance.server, 'keymail');
        const created = await call('POST', '/v1/users/me/api-keys', user.session, { name: 'deploy from CI', scopes: ['apps:read'] });
        const message = await settled(instance.server, user, 'security.api_key_created');
        expect(message.status).to.equal('sent');

        const mails = mailsTo(sink, user.email);
        expect(mails).to.have.length(1);
        const mail = mails[0];
        expect(mail.envelopeTo).to.equal([user.email]);
        expect(mail.envelopeFrom).to.equal('no-reply@hostless.test');
        expect(mail.parsed.subject).to.equal('A new API key was created on your account: deploy from CI');
        expect(mail.parsed.text).to.include(['Name: deploy from CI', `Key: ${created.result.apiKey.prefix}`, 'Scopes: apps:read', 'Expires: never']);
        expect(mail.parsed.text).to.include('it is always sent');
        const token: string = created.result.token;
        for (const text of [mail.raw, mail.parsed.text ?? '', mail.raw.replace(/=\r?\n/g, '')]) {
            expect(text.includes(token)).to.be.false();
            expect(text.includes(parseApiKey(token)!.secret)).to.be.false();
        }

        const attempts = await attemptsOf(instance.server, message.id);
        expect(attempts).to.have.length(1);
        expect(attempts[0]).to.include({ outcome: 'sent' });
        expect(attempts[0].response).to.startWith('250');
        await new Promise((resolve) => setTimeout(resolve, 600));       // a second poll of the queue sends nothing more
        expect(mailsTo(sink, user.email)).to.have.length(1);
    });

    it('retries a refusal at RCPT TO and delivers once on the second attempt, recording both attempts', async () => {
        const user = await register(instance.server, 'rcpt');
        sink.refuseNext(user.email, 'rcpt', 451, `Mailbox busy for ${sink.password}, try again later`);
        await createKey(instance.server, user, ['apps:read']);
        const message = await settled(instance.server, user, 'security.api_key_created');

        expect(message.status).to.equal('sent');
        const attempts = await attemptsOf(instance.server, message.id);
        expect(attempts.map((attempt) => attempt.outcome)).to.equal(['failed', 'sent']);
        expect(attempts[0]).to.include({ response_code: 451 });
        expect(attempts[0].response).to.include('Mailbox busy for [redacted], try again later');
        expect(JSON.stringify(attempts)).to.not.include(sink.password);
        expect(mailsTo(sink, user.email)).to.have.length(1);
    });

    it('retries a permanent refusal at the end of DATA too, and delivers once', async () => {
        const user = await register(instance.server, 'data');
        sink.refuseNext(user.email, 'data', 554, 'Message rejected for now');
        await createKey(instance.server, user, ['apps:read']);
        const message = await settled(instance.server, user, 'security.api_key_created');

        const attempts = await attemptsOf(instance.server, message.id);
        expect(attempts.map((attempt) => [attempt.outcome, attempt.response_code])).to.equal([['failed', 554], ['sent', 250]]);
        expect(mailsTo(sink, user.email)).to.have.length(1);
    });

    it('records the message failed after its last permanent refusal, and sends nothing', async () => {
        const user = await register(instance.server, 'refused');
        for (let i = 0; i < 3; ++i) {
            sink.refuseNext(user.email, 'rcpt', 550, 'No such mailbox');
        }

        await createKey(instance.server, user, ['apps:read']);
        const message = await eventually(async () => (await messagesOf(instance.server, user.id))[0], (row) => row?.status === 'failed', 'the message to fail', 20_000);
        const attempts = await attemptsOf(instance.server, message.id);
        expect(attempts.map((attempt) => [attempt.outcome, attempt.response_code])).to.equal([['failed', 550], ['failed', 550], ['failed', 550]]);
        const job = await eventually(() => deliveryJob(instance.server, message.id), (row) => row.status !== 'running', 'the job to finish');
        expect(job).to.include({ status: 'succeeded', attempts: 3 });
        expect(mailsTo(sink, user.email)).to.equal([]);
    });

    it('sends a security message for a sign-in from an address the account never signed in from, once', async () => {
        const user = await register(instance.server, 'traveller');
        const signIn = (remoteAddress: string) => instance.server.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: user.email, password: user.password }, remoteAddress });
        expect((await signIn('127.0.0.1')).statusCode).to.equal(200);
        expect((await signIn('203.0.113.7')).statusCode).to.equal(200);
        expect((await signIn('203.0.113.7')).statusCode).to.equal(200);
        const message = await settled(instance.server, user, 'security.sign_in_new_address');
        expect(message.status).to.equal('sent');
        expect(message.subject).to.equal('New sign-in to your account from 203.0.113.7');
        expect((await messagesOf(instance.server, user.id)).map((row) => row.type)).to.equal(['security.sign_in_new_address']);
    });

    it('tells a user they were invited to a project or to an app, once, unless they switched project messages off; security messages still come', async () => {
        const owner = await register(instance.server, 'owner');
        const project = (await call('POST', '/v1/projects', owner.session, { name: 'Shared Things' })).result;
        const keen = await register(instance.server, 'keen');
        const quiet = await register(instance.server, 'quiet');
        expect((await call('PATCH', '/v1/users/me/notification-preferences', quiet.session, { projects: false })).statusCode).to.equal(200);
        for (const member of [keen, quiet, keen]) {
            expect((await call('POST', `/v1/projects/${project.id}/members`, owner.session, { email: member.email, role: 'developer' })).statusCode).to.equal(202);
        }

        const told = await settled(instance.server, keen, 'projects.invited');
        expect(told.status).to.equal('sent');
        expect(told.subject).to.equal(`${owner.email} invited you to the project Shared Things`);
        expect(told.body).to.include([`${owner.email} invited you to join the project Shared Things on Hostless as developer.`, 'You become a member only if you accept.',
            '/dashboard/invitations', 'The invitation expires on ', '/dashboard/account/notifications']);
        const suppressed = await settled(instance.server, quiet, 'projects.invited');
        expect(suppressed.status).to.equal('suppressed');
        expect((await attemptsOf(instance.server, suppressed.id)).map((attempt) => attempt.outcome)).to.equal(['suppressed']);
        expect(mailsTo(sink, keen.email), 'invited twice, told once').to.have.length(1);
        expect(mailsTo(sink, quiet.email)).to.equal([]);

        const app = await call('POST', '/v1/apps', owner.session, { name: `told-${keen.id.slice(4, 12).toLowerCase()}`, projectId: project.id });
        expect((await call('PATCH', `/v1/apps/${app.result.name}/collaborators`, owner.session, { email: keen.email, permissions: ['view', 'deploy'] })).statusCode).to.equal(202);
        const shared = await settled(instance.server, keen, 'projects.collaborator_invited');
        expect(shared.subject).to.equal(`${owner.email} invited you to work on the app ${app.result.name}`);
        expect(shared.body).to.include(`with the permissions: view, deploy.`);

        await createKey(instance.server, quiet, ['apps:read']);
        expect((await settled(instance.server, quiet, 'security.api_key_created')).status).to.equal('sent');
    });

    it('writes no message, and queues no delivery, when the change that causes it fails', async () => {
        const owner = await register(instance.server, 'owner');
        const member = await register(instance.server, 'twice');
        const project = (await call('POST', '/v1/projects', owner.session, { name: 'Once' })).result;
        await joinProject(instance.server, owner, project.id, member, 'viewer');
        expect((await call('POST', `/v1/projects/${project.id}/members`, owner.session, { email: member.email, role: 'viewer' })).statusCode).to.equal(409);

        const knex = instance.server.app.knex;
        const deliveries = () => knex('jobs').where({ type: 'notifications.deliver' }).count({ n: '*' }).first();
        const before = await deliveries();
        await expect(knex.transaction(async (trx) => {
            await instance.server.plugins['hostless-notifications'].outbox.send(trx, { type: 'projects.invited', userId: member.id, data: { project: 'Gone', role: 'viewer', invitedBy: owner.email, expiresAt: 'never' } });
            throw new Error('the change failed');
        })).to.reject('the change failed');
        expect((await messagesOf(instance.server, member.id)).map((row) => row.subject)).to.equal([`${owner.email} invited you to the project Once`]);
        expect(await deliveries()).to.equal(before);
    });

    it('refuses to send a message whose data lacks what its templates name', async () => {
        const user = await register(instance.server, 'incomplete');
        await expect(instance.server.app.knex.transaction((trx) =>
            instance.server.plugins['hostless-notifications'].outbox.send(trx, { type: 'projects.invited', userId: user.id, data: { project: 'P' } }))).to.reject('A projects.invited message needs invitedBy, role, expiresAt');
        expect(await messagesOf(instance.server, user.id)).to.equal([]);
    });

    it('shows a user\'s messages with their attempts to the reader, newest first, in pages', async () => {
        const user = await register(instance.server, 'reader');
        sink.refuseNext(user.email, 'rcpt', 421, 'Try later');
        await createKey(instance.server, user, ['apps:read'], { name: 'first' });
        await settled(instance.server, user, 'security.api_key_created');
        await createKey(instance.server, user, ['apps:read'], { name: 'second' });
        await eventually(() => messagesOf(instance.server, user.id), (rows) => rows.length === 2 && rows.every((row) => row.status === 'sent'), 'both messages sent');

        const first = await listNotifications(instance.server.plugins['hostless-auth'].lists, instance.server.app.knex, user.id, { limit: 1 });
        expect(first.items.map((item) => item.subject)).to.equal(['A new API key was created on your account: second']);
        expect(first.items[0].attempts!.map((attempt) => attempt.outcome)).to.equal(['sent']);
        const next = await listNotifications(instance.server.plugins['hostless-auth'].lists, instance.server.app.knex, user.id, { limit: 1, cursor: first.next! });
        expect(next.next).to.be.null();
        expect(next.items[0]).to.include({ type: 'security.api_key_created', category: 'security', recipient: user.email, status: 'sent' });
        expect(next.items[0].attempts!.map((attempt) => [attempt.outcome, attempt.responseCode])).to.equal([['failed', 421], ['sent', 250]]);
    });
});

describe('notifications without SMTP_URL', () => {

    it('records each attempt not_configured, and `notifications retry` sends them once SMTP is configured', async () => {
        const bare = await testServer();
        const sink = await smtpSink();
        let configured: TestServer | null = null;
        try {
            bare.server.plugins['hostless-jobs'].queue.start();
            const user = await register(bare.server, 'unsent');
            await createKey(bare.server, user, ['apps:read']);
            const message = await settled(bare.server, user, 'security.api_key_created');
            expect(message.status).to.equal('not_configured');
            const [attempt, ...more] = await attemptsOf(bare.server, message.id);
            expect(more).to.equal([]);
            expect(attempt).to.include({ outcome: 'not_configured', response_code: null, response: 'SMTP_URL is not set: nothing was sent' });

            // The operator sets SMTP_URL and restarts; the command queues the message again, once however often it runs.
            await bare.server.stop();
            configured = await testServer({ ...smtpConfig(sink), database: bare.config.database });
            const out: string[] = [];
            expect(await runCli(['notifications', 'retry', user.email], configured.config, (line) => out.push(line))).to.equal(0);
            expect(await runCli(['notifications', 'retry'], configured.config, (line) => out.push(line))).to.equal(0);
            expect(out).to.equal([`Queued 1 message for delivery again to ${user.email}.`, 'Queued 0 messages for delivery again.']);
            configured.server.plugins['hostless-jobs'].queue.start();
            const sent = await eventually(async () => (await messagesOf(configured!.server, user.id))[0], (row) => row.status === 'sent', 'the message to be sent');
            expect((await attemptsOf(configured.server, sent.id)).map((attempt) => attempt.outcome)).to.equal(['not_configured', 'sent']);
            expect(sink.received).to.have.length(1);
            expect(sink.received[0].envelopeTo).to.equal([user.email]);
        }
        finally {
            await configured?.stop();
            await bare.stop();
            await sink.stop();
        }
    });
});

describe('notifications with the SMTP server down', () => {

    it('records a failed attempt saying the connection was refused, without the password, and keeps the message queued for the next', async () => {
        const sink = await smtpSink();
        await sink.stop();
        const instance = await testServer(smtpConfig(sink));
        try {
            instance.server.plugins['hostless-jobs'].queue.start();
            const user = await register(instance.server, 'down');
            await createKey(instance.server, user, ['apps:read']);
            const [message] = await messagesOf(instance.server, user.id);
            const [attempt] = await eventually(() => attemptsOf(instance.server, message.id), (rows) => rows.length > 0, 'the first attempt');
            expect(attempt).to.include({ outcome: 'failed', response_code: null });
            expect(attempt.response).to.match(/ECONNREFUSED/);
            expect(attempt.response).to.not.include(sink.password);
            expect((await messagesOf(instance.server, user.id))[0].status).to.equal('queued');
            const job = await eventually(() => deliveryJob(instance.server, message.id), (row) => row.status !== 'running', 'the job to be put back');
            expect(job).to.include({ status: 'queued', attempts: 1 });
            expect(job.run_at > new Date().toISOString(), 'after a backoff').to.be.true();
        }
        finally {
            await instance.stop();
        }
    });
});

describe('notification preferences', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    it('lists every category on by default, security always on', async () => {
        const user = await register(instance.server, 'prefs');
        const res = await call('GET', '/v1/users/me/notification-preferences', user.session);
        expect(res.statusCode).to.equal(200);
        expect(res.result.categories.map((entry: { category: string; enabled: boolean; required: boolean }) => [entry.category, entry.enabled, entry.required]))
            .to.equal([['security', true, true], ['projects', true, false], ['billing', true, false]]);
        expect(res.result.categories[0].description).to.include('Always sent');
    });

    it('switches a category off and on again, for this user only', async () => {
        const user = await register(instance.server, 'switch');
        const other = await register(instance.server, 'other');
        const off = await call('PATCH', '/v1/users/me/notification-preferences', user.session, { projects: false });
        expect(off.statusCode).to.equal(200);
        expect(off.result.categories.find((entry: { category: string }) => entry.category === 'projects').enabled).to.be.false();
        const read = async (who: TestUser) => (await call('GET', '/v1/users/me/notification-preferences', who.session)).result.categories[1].enabled;
        expect(await read(user)).to.be.false();
        expect(await read(other)).to.be.true();
        expect((await call('PATCH', '/v1/users/me/notification-preferences', user.session, { projects: true, security: true })).statusCode).to.equal(200);
        expect(await read(user)).to.be.true();
    });

    it('refuses to switch security messages off, an unknown category and an empty change, changing nothing', async () => {
        const user = await register(instance.server, 'refuse');
        const patch = (payload: object) => call('PATCH', '/v1/users/me/notification-preferences', user.session, payload);
        const security = await patch({ security: false, projects: false });
        expect(security.statusCode).to.equal(400);
        expect(security.result.message).to.equal('"security" messages cannot be switched off: they tell you about your account\'s security');
        expect((await patch({ marketing: false })).result.message).to.equal('"marketing" is not a notification category');
        expect((await patch({})).result.message).to.equal('The request body must change at least one field');
        expect((await patch({ projects: 'sometimes' })).result.message).to.equal('"projects" must be a boolean');
        expect(await instance.server.app.knex('notification_preferences').where({ user_id: user.id })).to.equal([]);
    });

    it('answers an API key with 403: preferences are for a signed-in session', async () => {
        const user = await register(instance.server, 'keyed');
        const key = await createKey(instance.server, user, ['apps:read']);
        expect((await call('GET', '/v1/users/me/notification-preferences', key.token)).statusCode).to.equal(403);
    });
});

describe('notification retention', () => {

    it('prunes attempts and finished messages past the retention period, idempotently, in a daily job', async () => {
        const instance = await testServer({ notifications: { smtpUrl: null, from: 'Hostless <no-reply@localhost>', retentionDays: 30 } }, { start: true });
        try {
            const knex = instance.server.app.knex;
            expect(await knex('jobs').where({ type: 'notifications.prune' }).first()).to.include({ status: 'queued' });
            const user = await register(instance.server, 'old');
            await createKey(instance.server, user, ['apps:read'], { name: 'old' });
            await createKey(instance.server, user, ['apps:read'], { name: 'stuck' });
            await login(instance.server, user);
            const queue = instance.server.plugins['hostless-jobs'].queue;
            queue.start();
            await eventually(() => messagesOf(instance.server, user.id), (rows) => rows.every((row) => row.status === 'not_configured'), 'attempts');
            await queue.stop();

            const long = new Date(Date.now() - 31 * 24 * 3600 * 1000).toISOString();
            const [old, stuck] = await messagesOf(instance.server, user.id);
            await knex('notifications').whereIn('id', [old.id, stuck.id]).update({ created_at: long });
            await knex('notification_attempts').whereIn('notification_id', [old.id, stuck.id]).update({ attempted_at: long });
            await knex('notifications').where({ id: stuck.id }).update({ status: 'queued' });

            expect(await pruneNotifications(knex, 30)).to.equal({ messages: 1, attempts: 2 });
            expect(await pruneNotifications(knex, 30)).to.equal({ messages: 0, attempts: 0 });
            expect((await messagesOf(instance.server, user.id)).map((row) => row.id)).to.equal([stuck.id]);
            expect(await knex('notification_attempts').where({ notification_id: stuck.id })).to.equal([]);
        }
        finally {
            await instance.stop();
        }
    });
});
