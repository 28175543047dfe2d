import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { DeploymentFailure, type MetricName } from '../../../lib/runtime/driver';
import { RecordsDriver } from '../../../lib/runtime/records';
import { caller, register, type TestUser } from '../../helpers/api';
import { createApp, deploymentSettled } from '../../helpers/apps';
import { testServer, type TestServer } from '../../helpers/server';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

/** A driver that measures CPU and requests (as the process driver and the edge will), and fails builds of `bad` commits. */
class MeasuringDriver extends RecordsDriver {
    override observes(metric: MetricName): boolean {
        return metric === 'cpu-usage' || metric === 'request-count';
    }

    override async build(...args: Parameters<RecordsDriver['build']>): Promise<void> {
        await super.build(...args);
        if (args[0].name.startsWith('broken')) {
            throw new DeploymentFailure('npm run build exited with 1');
        }
    }
}

describe('app logs, metrics and traces', () => {

    let instance: TestServer;
    let owner: TestUser;
    let app: { id: string; name: string; projectId: string };
    const call = caller(() => instance.server);
    // Times are offsets from one moment fixed before the lines are written, so a slow run cannot shift a window.
    let base = Date.now();
    const iso = (offsetMs: number) => new Date(base + offsetMs).toISOString();

    before(async () => {
        base = Date.now();
        instance = await testServer({}, { driver: new MeasuringDriver() });
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'observer');
        app = await createApp(instance.server, owner);
        const knex = instance.server.app.knex;
        const line = (offsetMs: number, level: string, message: string) => ({ resource_id: app.id, project_id: app.projectId, stream: 'runtime', level, message, timestamp: iso(offsetMs) });
        await knex('log_lines').insert([
            line(-5000, 'info', 'GET / 200 in 4ms'), line(-4000, 'warn', 'Slow query: 900ms'), line(-3000, 'error', 'Unhandled rejection: ECONNRESET'),
            line(-2000, 'info', 'GET /health 200 in 1ms'), line(-1000, 'debug', 'cache miss for 100%_done')
        ]);
    });

    after(async () => {
        await instance?.stop();
    });

    describe('logs', () => {

        const messages = async (query: string) => (await call('GET', `/v1/apps/${app.name}/logs${query}`, owner.session)).result.map((line: { message: string }) => line.message);

        it('answers newest first, filtered by text (any case), level and time, within a limit', async () => {
            expect(await messages('')).to.equal(['cache miss for 100%_done', 'GET /health 200 in 1ms', 'Unhandled rejection: ECONNRESET', 'Slow query: 900ms', 'GET / 200 in 4ms']);
            expect(await messages('?q=get')).to.equal(['GET /health 200 in 1ms', 'GET / 200 in 4ms']);
            expect(await messages('?level=warn')).to.equal(['Unhandled rejection: ECONNRESET', 'Slow query: 900ms']);
            expect(await messages(`?since=${encodeURIComponent(iso(-3500))}&until=${encodeURIComponent(iso(-1500))}`)).to.equal(['GET /health 200 in 1ms', 'Unhandled rejection: ECONNRESET']);
            expect(await messages('?limit=2')).to.have.length(2);
            expect(await messages('?q=100%25_')).to.equal(['cache miss for 100%_done']);
            expect(await messages('?q=1%25'), 'a % in the text is no wildcard').to.equal([]);
        });

        it('finds an app\'s matches written before, between and after another app\'s, and none of the other\'s', async () => {
            const knex = instance.server.app.knex;
            const other = await createApp(instance.server, owner);
            const write = (resource: { id: string; projectId: string }, offsetMs: number, message: string) => knex('log_lines')
                .insert({ resource_id: resource.id, project_id: resource.projectId, stream: 'runtime', level: 'info', message, timestamp: iso(offsetMs) });
            await write(other, -900, 'upstream-timeout from the other app, first');
            await write(app, -800, 'upstream-timeout one');
            await write(other, -700, 'upstream-timeout from the other app, between');
            await write(app, -600, 'upstream-timeout two');
            await write(other, -500, 'upstream-timeout from the other app, last');
            expect(await messages('?q=upstream-timeout')).to.equal(['upstream-timeout two', 'upstream-timeout one']);
            const others = await call('GET', `/v1/apps/${other.name}/logs?q=UPSTREAM-timeout`, owner.session);
            expect(others.result.map((line: { message: string }) => line.message)).to.equal(['upstream-timeout from the other app, last', 'upstream-timeout from the other app, between', 'upstream-timeout from the other app, first']);
            await knex('log_lines').whereIn('resource_id', [app.id, other.id]).andWhere('message', 'like', 'upstream-timeout%').delete();
        });

        it('keeps a batch whose lines hold a NUL character or half of a surrogate pair, each shown as U+FFFD', async () => {
            const other = await createApp(instance.server, owner);
            const line = (message: string) => ({ resourceType: 'app', resourceId: other.id, projectId: other.projectId, stream: 'runtime' as const, level: 'info' as const, message, timestamp: iso(-100) });
            await instance.server.plugins['hostless-resources'].services.logs.writeMany(instance.server.app.knex, [
                line('binary \0 output'), line('half \ud83d pair'), line('lone \ude00 low'), line('whole \ud83d\ude00 pair')
            ]);
            const listed = await call('GET', `/v1/apps/${other.name}/logs`, owner.session);
            expect(listed.result.map((entry: { message: string }) => entry.message).sort()).to.equal(['binary \ufffd output', 'half \ufffd pair', 'lone \ufffd low', 'whole \ud83d\ude00 pair']);
        });

        it('refuses a limit over 500, an unknown level and a malformed time', async () => {
            for (const query of ['?limit=501', '?level=fatal', '?since=yesterday']) {
                expect((await call('GET', `/v1/apps/${app.name}/logs${query}`, owner.session)).statusCode, query).to.equal(400);
            }
        });
    });

    describe('metrics', () => {

        it('says a metric the driver does not observe is unavailable, with an empty series', async () => {
            const res = await call('GET', `/v1/apps/${app.name}/metrics/memory-usage?startDate=2026-11-01&endDate=2026-11-02`, owner.session);
            expect(res.result).to.equal({
                metric: 'memory-usage', unit: 'bytes', step: 600, startDate: '2026-11-01T00:00:00.000Z', endDate: '2026-11-03T00:00:00.000Z', source: 'unavailable', series: []
            });
            expect((await call('GET', `/v1/apps/${app.name}/metrics/response-duration`, owner.session)).result).to.include({ source: 'unavailable', unit: 'milliseconds', series: [] });
        });

        it('buckets what a driver measured by step: averages for gauges, sums for counts', async () => {
            const start = Date.parse('2026-11-20T10:00:00.000Z');
            const point = (metric: string, offsetS: number, value: number) => ({ resource_id: app.id, metric, timestamp: new Date(start + offsetS * 1000).toISOString(), at: start + offsetS * 1000, value });
            await instance.server.app.knex('metric_points').insert([
                point('cpu-usage', 10, 20), point('cpu-usage', 50, 40), point('cpu-usage', 70, 90),
                point('request-count', 5, 3), point('request-count', 30, 4), point('request-count', 130, 1)
            ]);
            const range = 'since=2026-11-20T10:00:00.000Z&until=2026-11-20T10:05:00.000Z&step=60';
            const cpu = await call('GET', `/v1/apps/${app.name}/metrics/cpu-usage?${range}`, owner.session);
            expect(cpu.result).to.include({ source: 'measured', unit: 'percent', step: 60 });
            expect(cpu.result.series).to.equal([{ timestamp: '2026-11-20T10:00:00.000Z', value: 30 }, { timestamp: '2026-11-20T10:01:00.000Z', value: 90 }]);
            const requests = await call('GET', `/v1/apps/${app.name}/metrics/request-count?${range}`, owner.session);
            expect(requests.result.series).to.equal([{ timestamp: '2026-11-20T10:00:00.000Z', value: 7 }, { timestamp: '2026-11-20T10:02:00.000Z', value: 1 }]);
        });

        it('refuses ranges that end before they start, last over 31 days, hold too many points, or mix forms', async () => {
            const cases: Array<[string, string]> = [
                ['?since=2026-11-20T10:00:00Z&until=2026-11-20T09:00:00Z', 'The range must end after it starts'],
                ['?startDate=2026-01-01&endDate=2026-03-01', 'A metrics range is at most 31 days'],
                ['?startDate=2026-11-01&endDate=2026-11-02&step=60', '"step" is too small for this range: at most 1000 points'],
                ['?startDate=2026-11-01&since=2026-11-01T00:00:00Z', 'Send only one of "startDate" and "since"']
            ];
            for (const [query, message] of cases) {
                const res = await call('GET', `/v1/apps/${app.name}/metrics/cpu-usage${query}`, owner.session);
                expect(res.statusCode, query).to.equal(400);
                expect(res.result.message, query).to.equal(message);
            }
        });
    });

    describe('traces', () => {

        it('returns recorded spans with OpenTelemetry\'s fields, filtered by time and trace', async () => {
            const span = (trace: string, id: string, parent: string | null, offsetMs: number, name: string) => ({
                resource_id: app.id, project_id: app.projectId, trace_id: trace.padEnd(32, '0'), span_id: id.padEnd(16, '0'), parent_span_id: parent?.padEnd(16, '0') ?? null,
                name, kind: parent ? 'INTERNAL' : 'SERVER', start_time: iso(offsetMs), end_time: iso(offsetMs + 25), status_code: 'OK', status_message: null,
                attributes: JSON.stringify({ 'http.method': 'GET' })
            });
            await instance.server.app.knex('spans').insert([span('a1', 'b1', null, -3000, 'GET /'), span('a1', 'b2', 'b1', -2990, 'db.query'), span('c1', 'd1', null, -1000, 'GET /health')]);

            const all = await call('GET', `/traces/${app.name}`.replace('/traces', '/v1/traces'), owner.session);
            expect(all.result.map((s: { name: string }) => s.name)).to.equal(['GET /health', 'db.query', 'GET /']);
            expect(all.result[2]).to.equal({
                traceId: 'a1'.padEnd(32, '0'), spanId: 'b1'.padEnd(16, '0'), parentSpanId: null, name: 'GET /', kind: 'SERVER', startTime: all.result[2].startTime,
                endTime: all.result[2].endTime, durationMs: 25, status: { code: 'OK', message: null }, attributes: { 'http.method': 'GET' }
            });
            const trace = await call('GET', `/v1/traces/${app.name}?traceId=${'a1'.padEnd(32, '0')}`, owner.session);
            expect(trace.result.map((s: { name: string }) => s.name)).to.equal(['db.query', 'GET /']);
            const recent = await call('GET', `/v1/traces/${app.name}?since=${encodeURIComponent(iso(-2000))}`, owner.session);
            expect(recent.result.map((s: { name: string }) => s.name)).to.equal(['GET /health']);
        });

        it('answers an empty list for an app with no recorded span', async () => {
            const quiet = await createApp(instance.server, owner);
            expect((await call('GET', `/v1/traces/${quiet.name}`, owner.session)).result).to.equal([]);
        });
    });

    describe('a build that fails', () => {

        it('fails the deployment with its reason and leaves the app failed when nothing is live', async () => {
            const broken = await createApp(instance.server, owner, { name: `broken-${Date.now().toString(36)}` });
            const deployment = await call('POST', `/v1/apps/${broken.name}/deployments/new`, owner.session, {});
            const failed = await deploymentSettled(instance.server, owner, broken.name, deployment.result.id);
            expect(failed).to.include({ status: 'failed', error: 'npm run build exited with 1' });
            expect((await call('GET', `/v1/apps/${broken.name}`, owner.session)).result).to.include({ status: 'failed', liveDeploymentId: null });
            const logs = await call('GET', `/v1/apps/${broken.name}/deployments/${deployment.result.id}/logs?level=error`, owner.session);
            expect(logs.result.map((line: { message: string }) => line.message)).to.equal(['Deployment failed: npm run build exited with 1']);
            expect((await call('GET', `/v1/apps/${broken.name}/build/stats`, owner.session)).result).to.include({ failed: 1, live: 0 });
        });
    });
});
