import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, register, type TestUser } from '../../helpers/api';
import { createApp } from '../../helpers/apps';
import { Visitor } from '../../helpers/dashboard';
import { testServer, type TestServer } from '../../helpers/server';

// The live tail: server-sent events polling the logs API with the session's token. Signing out ends a stream within
// one poll, a stream ends at its time limit, a session holds at most three, and shutdown ends them all first.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

interface Event {
    event: string;
    data: string;
}

const events = (payload: string): Event[] => payload.split('\n\n').filter((block) => block.startsWith('event:')).map((block) => {
    const [event, data] = block.split('\n');
    return { event: event.slice('event: '.length), data: data.slice('data: '.length) };
});

describe('dashboard live tail', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer({ dashboard: { liveTail: { pollMs: 50, maxMs: 60_000, perSession: 3 } } });
        instance.server.plugins['hostless-jobs'].queue.start();
    });

    after(async () => {
        await instance?.stop();
    });

    const signIn = async (server: TestServer['server'], user: TestUser) => {
        const visitor = new Visitor(server);
        await visitor.get('/dashboard/sign-in');
        await visitor.post('/dashboard/sign-in', { email: user.email, password: user.password });
        return visitor;
    };

    const stream = (server: TestServer['server'], visitor: Visitor, url: string) => server.inject({ method: 'GET', url, headers: { cookie: visitor.cookieHeader() } });

    it('streams the lines of a deployment as they are written, then ends within a poll of signing out', async () => {
        const user = await register(instance.server);
        const app = await createApp(instance.server, user, { projectId: user.projectId, startCommand: 'npm start' });
        const visitor = await signIn(instance.server, user);
        const tail = instance.server.inject({ method: 'GET', url: `/dashboard/apps/${app.name}/logs/stream`, headers: { cookie: visitor.cookieHeader(), 'accept-encoding': 'gzip, deflate' } });
        const deployment = await call('POST', `/v1/apps/${app.name}/deployments/new`, user.session, {});
        expect(deployment.statusCode).to.equal(201);
        // Wait for the line that says it is live through the API, then for a poll of the tail received after that
        // (its answer holds the line, which the tail sends before it polls again), then sign out in the dashboard. A
        // fixed wait raced the poll on a loaded machine.
        const polls: number[] = [];
        const onResponse = (request: { path: string; query: Record<string, unknown>; info: { received: number }; response: unknown }) => {
            if (request.path === `/v1/apps/${app.name}/logs` && Number(request.query.limit) === 500 && (request.response as { statusCode?: number } | null)?.statusCode === 200) {
                polls.push(request.info.received);
            }
        };

        instance.server.events.on('response', onResponse);
        try {
            let seenAt = 0;
            for (let tries = 0; tries < 1500; ++tries) {
                if (!seenAt) {
                    const logs = await call('GET', `/v1/apps/${app.name}/logs?q=is%20live`, user.session);
                    seenAt = logs.result.length ? Date.now() : 0;
                }

                if (seenAt && polls.some((received) => received > seenAt)) {
                    break;
                }

                await new Promise((resolve) => setTimeout(resolve, 20));
            }
        }
        finally {
            instance.server.events.removeListener('response', onResponse);
        }

        await visitor.get('/dashboard/projects');
        expect((await visitor.post('/dashboard/sign-out')).statusCode).to.equal(302);

        const res = await tail;
        expect(res.statusCode).to.equal(200);
        expect(res.headers['content-type']).to.equal('text/event-stream; charset=utf-8');
        expect(res.headers['cache-control']).to.equal('no-store');
        expect(res.headers['content-encoding'], 'never held back by a compressor').to.equal('identity');
        const got = events(res.payload);
        const lines = got.filter((event) => event.event === 'line').map((event) => JSON.parse(event.data) as { message: string; level: string; timestamp: string });
        expect(lines.map((line) => line.message)).to.include(`${deployment.result.id} is live (records driver: no process was started)`);
        expect(new Set(lines.map((line) => `${line.timestamp}${line.message}`)).size, 'each line once').to.equal(lines.length);
        expect(lines.map((line) => line.timestamp)).to.equal([...lines.map((line) => line.timestamp)].sort());
        expect(got[got.length - 1]).to.equal({ event: 'end', data: 'signed-out' });
        expect(instance.server.plugins['hostless-dashboard']!.liveTails.count()).to.equal(0);
    });

    it('holds at most three streams per session, refusing a fourth with 429', async () => {
        const user = await register(instance.server);
        const app = await createApp(instance.server, user, { projectId: user.projectId });
        const visitor = await signIn(instance.server, user);
        const open = [1, 2, 3].map(() => stream(instance.server, visitor, `/dashboard/apps/${app.name}/logs/stream`));
        for (let tries = 0; instance.server.plugins['hostless-dashboard']!.liveTails.count() < 3 && tries < 500; ++tries) {
            await new Promise((resolve) => setTimeout(resolve, 20));
        }

        const fourth = await stream(instance.server, visitor, `/dashboard/apps/${app.name}/logs/stream`);
        expect(fourth.statusCode).to.equal(429);
        expect(fourth.payload).to.contain('A session may hold 3 live tails at once');

        const other = await signIn(instance.server, user);
        const elsewhere = stream(instance.server, other, `/dashboard/apps/${app.name}/logs/stream?level=error`);
        await visitor.get('/dashboard/projects');
        await visitor.post('/dashboard/sign-out');
        for (const res of await Promise.all(open)) {
            expect(events(res.payload).pop()).to.equal({ event: 'end', data: 'signed-out' });
        }

        await other.get('/dashboard/projects');
        await other.post('/dashboard/sign-out');
        expect(events((await elsewhere).payload).pop(), 'another session had its own allowance').to.equal({ event: 'end', data: 'signed-out' });
    });

    it('refuses a visitor who is not signed in, and another user\'s app as a missing one', async () => {
        const user = await register(instance.server);
        const app = await createApp(instance.server, user, { projectId: user.projectId });
        const anonymous = await instance.server.inject(`/dashboard/apps/${app.name}/logs/stream`);
        expect(anonymous.statusCode).to.equal(302);
        const stranger = await signIn(instance.server, await register(instance.server, 'stranger'));
        expect((await stream(instance.server, stranger, `/dashboard/apps/${app.name}/logs/stream`)).statusCode).to.equal(404);
    });

    it('ends a stream at its time limit, and every stream at shutdown', async () => {
        const short = await testServer({ dashboard: { liveTail: { pollMs: 50, maxMs: 300, perSession: 3 } } });
        const long = await testServer({ dashboard: { liveTail: { pollMs: 50, maxMs: 600_000, perSession: 3 } } });
        try {
            const user = await register(short.server);
            const shortApp = await createApp(short.server, user, { projectId: user.projectId });
            const timed = await stream(short.server, await signIn(short.server, user), `/dashboard/apps/${shortApp.name}/logs/stream`);
            expect(events(timed.payload).pop()).to.equal({ event: 'end', data: 'time-limit' });

            const owner = await register(long.server);
            const longApp = await createApp(long.server, owner, { projectId: owner.projectId });
            const visitor = await signIn(long.server, owner);
            const open = [1, 2].map(() => stream(long.server, visitor, `/dashboard/apps/${longApp.name}/logs/stream`));
            for (let tries = 0; long.server.plugins['hostless-dashboard']!.liveTails.count() < 2 && tries < 500; ++tries) {
                await new Promise((resolve) => setTimeout(resolve, 20));
            }

            const stopping = long.server.stop({ timeout: 60_000 });
            for (const res of await Promise.all(open)) {
                expect(events(res.payload).pop()).to.equal({ event: 'end', data: 'shutdown' });
            }

            await stopping;
        }
        finally {
            await short.stop();
            await long.stop();
        }
    });
});
