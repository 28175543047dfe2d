import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { REMINDER_JOB } from '../../../plugins/api-keys';
import { sendExpiryReminders } from '../../../plugins/api-keys/services/reminders';
import { caller, createKey, register, type TestUser } from '../../helpers/api';
import { eventually } from '../../helpers/apps';
import { testServer, type TestServer } from '../../helpers/server';
import { smtpSink, type SmtpSink } from '../../helpers/smtp-sink';

// Expiry reminders 7 days and 1 day before, each sent once, through the outbox to a real SMTP server on 127.0.0.1;
// the time is the test's to choose. The hourly job sends them on its own.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const DAY_MS = 24 * 3600_000;

describe('API key expiry reminders', () => {

    let sink: SmtpSink;
    let instance: TestServer;
    let offset = 0;
    const call = caller(() => instance.server);
    const knex = () => instance.server.app.knex;
    const outbox = () => instance.server.plugins['hostless-notifications'].outbox;
    const remind = (at: number) => sendExpiryReminders(knex(), outbox(), at);
    const mailsTo = (user: TestUser) => sink.received.filter((mail) => mail.envelopeTo.includes(user.email));
    const delivered = (user: TestUser, count: number) => eventually(() => Promise.resolve(mailsTo(user)), (mails) => mails.length >= count, `${count} reminder(s) to ${user.email}`, 15_000);

    before(async () => {
        sink = await smtpSink();
        instance = await testServer({ notifications: { smtpUrl: sink.url, from: 'Hostless <no-reply@hostless.test>', retentionDays: 90 } }, { start: true, clock: { now: () => new Date(Date.now() + offset) } });
        instance.server.plugins['hostless-jobs'].queue.start();
    });

    after(async () => {
        await instance?.stop();
        await sink?.stop();
    });

    it('sends the 7-day and the 1-day reminder once each, by email', async () => {
        const user = await register(instance.server, 'reminded');
        const expiresAt = Date.now() + 10 * DAY_MS;
        const key = await createKey(instance.server, user, ['projects:read'], { name: 'nightly build', expiresAt: new Date(expiresAt).toISOString() });
        const prefix = (await call('GET', '/v1/users/me/api-keys', user.session)).result[0].prefix as string;
        await delivered(user, 1);                                                   // the "new key" message
        const before = mailsTo(user).length;

        expect(await remind(expiresAt - 8 * DAY_MS)).to.equal(0);
        expect(await remind(expiresAt - 6.5 * DAY_MS)).to.equal(1);
        expect(await remind(expiresAt - 6 * DAY_MS), 'the 7-day reminder is sent once').to.equal(0);
        const [week] = (await delivered(user, before + 1)).slice(before);
        expect(week.parsed.subject).to.equal('Your API key nightly build expires in 6 days');
        expect(week.parsed.text).to.include(`The API key nightly build (${prefix})`).and.to.include(new Date(expiresAt).toISOString()).and.to.include('it is always sent');

        expect(await remind(expiresAt - 20 * 3600_000)).to.equal(1);
        expect(await remind(expiresAt - 2 * 3600_000), 'the 1-day reminder is sent once').to.equal(0);
        const [day] = (await delivered(user, before + 2)).slice(before + 1);
        expect(day.parsed.subject).to.equal('Your API key nightly build expires in 20 hours');
        expect(await remind(expiresAt + 3600_000), 'nothing after it expired').to.equal(0);
        expect(await knex()('notifications').where({ user_id: user.id, type: 'security.api_key_expiring' })).to.have.length(2);
        expect(key.id).to.startWith('key_');
    });

    it('skips a stage longer than the key\'s life, and sends nothing for revoked keys or disabled accounts', async () => {
        const user = await register(instance.server);
        const short = Date.now() + 3 * DAY_MS;
        await createKey(instance.server, user, ['projects:read'], { name: 'short', expiresAt: new Date(short).toISOString() });
        expect(await remind(short - 2 * DAY_MS), 'a key made to last 3 days gets no 7-day reminder').to.equal(0);
        expect(await remind(short - 12 * 3600_000)).to.equal(1);

        const revokedAt = Date.now() + 10 * DAY_MS;
        const revoked = await createKey(instance.server, user, ['projects:read'], { name: 'revoked', expiresAt: new Date(revokedAt).toISOString() });
        await call('DELETE', `/v1/users/me/api-keys/${revoked.id}`, user.session);
        const other = await register(instance.server);
        await createKey(instance.server, other, ['projects:read'], { name: 'disabled', expiresAt: new Date(revokedAt).toISOString() });
        await knex()('users').where({ id: other.id }).update({ disabled_at: new Date().toISOString() });
        expect(await remind(revokedAt - 5 * DAY_MS)).to.equal(0);
    });

    it('runs every hour on its own: the job of the current hour is queued at start and sends what is due', async () => {
        const user = await register(instance.server);
        const expiresAt = Date.now() + 8 * DAY_MS;
        await createKey(instance.server, user, ['projects:read'], { name: 'by the job', expiresAt: new Date(expiresAt).toISOString() });
        const job = await knex()('jobs').where({ type: REMINDER_JOB }).orderBy('created_at').first();
        expect(job.idempotency_key).to.equal(`${REMINDER_JOB}:${Math.floor(Date.parse(job.run_at) / 3600_000)}`);
        await eventually(() => knex()('jobs').where({ id: job.id }).first('status'), (row: { status: string }) => row.status === 'succeeded', 'the first run');

        offset = 1.5 * DAY_MS;                                  // the server's clock: 6.5 days before the expiry
        const next = await knex()('jobs').where({ type: REMINDER_JOB }).whereNot({ id: job.id }).first();
        expect(Date.parse(next.run_at)).to.equal(Date.parse(job.run_at) + 3600_000);
        await knex()('jobs').where({ id: next.id }).update({ run_at: new Date().toISOString() });     // its hour has come
        const [sent] = await eventually(() => knex()('notifications').where({ user_id: user.id, type: 'security.api_key_expiring' }), (rows) => rows.length > 0, 'the reminder sent by the job');
        expect(sent.subject).to.equal('Your API key by the job expires in 6 days');
        offset = 0;
    });
});
