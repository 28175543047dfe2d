import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { caller, createKey, register, type TestUser } from '../helpers/api';
import { eventually } from '../helpers/apps';
import { testServer, type TestServer } from '../helpers/server';
import { sshPublicKey } from '../helpers/ssh';

// Virtual machines under the `records` driver: create with the caller's SSH keys, lists, the state machine with
// every refusal, resources only while stopped, firewall rules and their validation, metrics that measure nothing,
// the versioned pricing catalogue, and a delete that leaves only the allocation history billing meters.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const BODY = { size: 's-1vcpu-1gb', image: 'debian-12', region: 'eu-west' };

describe('virtual machines (records driver)', () => {

    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);
    const withoutJobs = async <T>(work: () => Promise<T>): Promise<T> => {
        const { queue } = instance.server.plugins['hostless-jobs'];
        await queue.stop();
        try {
            return await work();
        }
        finally {
            queue.start();
        }
    };
    const running = (id: string) => eventually(async () => (await call('GET', `/v1/virtual-machines/${id}`, owner.session)).result,
        (vm: any) => vm.status === 'running', `${id} to run`);
    const create = async (body: Record<string, unknown> = {}, user = owner) => {
        const res = await call('POST', '/v1/virtual-machines', user.session, { name: 'web', ...BODY, ...body });
        expect(res.statusCode, res.payload).to.equal(201);
        return res.result;
    };

    before(async () => {
        instance = await testServer();
        instance.server.plugins['hostless-jobs'].queue.start();
        owner = await register(instance.server, 'owner');
    });

    after(async () => {
        await instance?.stop();
    });

    it('creates a machine of a catalogue size with the caller\'s SSH keys, provisioning then running, naming its driver', async () => {
        const laptop = (await call('POST', '/v1/users/me/ssh-keys', owner.session, { name: 'laptop', publicKey: sshPublicKey() })).result;
        const desktop = (await call('POST', '/v1/users/me/ssh-keys', owner.session, { name: 'desktop', publicKey: sshPublicKey() })).result;

        const vm = await withoutJobs(() => create({ name: 'builder', sshKeys: [desktop.id] }));
        expect(vm).to.include({ name: 'builder', projectId: owner.projectId, status: 'provisioning', driver: 'records', size: 's-1vcpu-1gb', image: 'debian-12', region: 'eu-west', vcpus: 1, memoryMiB: 1024, diskGiB: 25, ipv4: null, pricingVersion: '2026-11-01', error: null });
        expect(vm.id).to.match(/^vm_[0-9A-Za-z]{16}$/);
        expect(vm.sshKeys).to.equal([{ id: desktop.id, name: 'desktop', fingerprint: desktop.fingerprint }]);
        expect((await running(vm.id)).status).to.equal('running');

        const every = await create();
        expect(every.sshKeys.map((key: any) => key.name)).to.equal(['laptop', 'desktop']);
        expect((await create({ sshKeys: [] })).sshKeys).to.equal([]);
        expect((await call('DELETE', `/v1/users/me/ssh-keys/${laptop.id}`, owner.session)).statusCode).to.equal(204);
        expect((await call('GET', `/v1/virtual-machines/${every.id}`, owner.session)).result.sshKeys, 'copied at creation').to.have.length(2);
    });

    it('refuses another user\'s SSH key exactly as a missing one, and sizes, images and regions not in the catalogue', async () => {
        const stranger = await register(instance.server, 'stranger');
        const theirs = (await call('POST', '/v1/users/me/ssh-keys', stranger.session, { name: 'theirs', publicKey: sshPublicKey() })).result;
        const foreign = await call('POST', '/v1/virtual-machines', owner.session, { name: 'web', ...BODY, sshKeys: [theirs.id] });
        const missing = await call('POST', '/v1/virtual-machines', owner.session, { name: 'web', ...BODY, sshKeys: ['ssh_0000000000000000'] });
        expect(foreign.statusCode).to.equal(400);
        expect(foreign.result.message.replace(theirs.id, '<id>')).to.equal(missing.result.message.replace('ssh_0000000000000000', '<id>'));
        expect(missing.result.message).to.equal('"sshKeys" must name SSH keys of your account (GET /v1/users/me/ssh-keys), and ssh_0000000000000000 is not');

        expect((await call('POST', '/v1/virtual-machines', owner.session, { name: 'web', ...BODY, size: 'huge' })).result.message).to.equal('"size" must be one of s-1vcpu-1gb, s-1vcpu-2gb, s-2vcpu-4gb, s-4vcpu-8gb, s-8vcpu-16gb');
        expect((await call('POST', '/v1/virtual-machines', owner.session, { name: 'web', ...BODY, image: 'windows' })).statusCode).to.equal(400);
        expect((await call('POST', '/v1/virtual-machines', owner.session, { name: 'web', ...BODY, region: 'moon' })).statusCode).to.equal(400);
        expect((await call('POST', '/v1/virtual-machines', owner.session, { name: 'Web Server', ...BODY })).result.message).to.equal('"name" must be a valid DNS label');
        const key = (await createKey(instance.server, owner, ['virtual-machines:write'])).token;
        expect((await call('POST', '/v1/virtual-machines', key, { name: 'web', ...BODY })).result.message).to.equal('"projectId" is required when using an API key or OAuth token');
    });

    it('lists machines newest first, across projects or for one project, and by project id', async () => {
        const team = (await call('POST', '/v1/projects', owner.session, { name: 'Team' })).result;
        const teamVm = await create({ name: 'team-box', projectId: team.id });
        const all = (await call('GET', '/v1/virtual-machines', owner.session)).result;
        expect(all[0].id).to.equal(teamVm.id);
        expect(all.length as number).to.be.at.least(4);
        expect((await call('GET', `/v1/virtual-machines?projectId=${team.id}`, owner.session)).result.map((vm: any) => vm.id)).to.equal([teamVm.id]);
        expect((await call('GET', `/v1/virtual-machines/project/${team.id}`, owner.session)).result.map((vm: any) => vm.id)).to.equal([teamVm.id]);
        const paged = await call('GET', `/v1/virtual-machines/project/${owner.projectId}?limit=2`, owner.session);
        expect(paged.result).to.have.length(2);
        expect(paged.headers.link).to.match(/^<\/v1\/virtual-machines\/project\/prj_\w+\?limit=2&cursor=[\w-]+>; rel="next"$/);
        const stranger = await register(instance.server, 'lister');
        expect((await call('GET', '/v1/virtual-machines', stranger.session)).result).to.equal([]);
        expect((await call('GET', `/v1/virtual-machines/project/${team.id}`, stranger.session)).statusCode).to.equal(404);
        expect((await call('GET', `/v1/virtual-machines/${teamVm.id}`, stranger.session)).statusCode).to.equal(404);
    });

    it('stops, starts and restarts, and refuses every impossible move with 409 naming the current state', async () => {
        const vm = await withoutJobs(async () => {
            const made = await create();
            for (const action of ['start', 'stop', 'restart']) {
                const res = await call('POST', `/v1/virtual-machines/${made.id}/${action}`, owner.session);
                expect(res.statusCode, action).to.equal(409);
                expect(res.result.message, action).to.equal(`Cannot ${action} the virtual machine ${made.id}: it is provisioning (it must be ${action === 'start' ? 'stopped' : 'running'})`);
            }

            expect((await call('DELETE', `/v1/virtual-machines/${made.id}`, owner.session)).result.message).to.equal(`Cannot delete the virtual machine ${made.id}: it is provisioning (it must be running, stopped or failed)`);
            return made;
        });
        await running(vm.id);
        const url = `/v1/virtual-machines/${vm.id}`;
        expect((await call('POST', `${url}/start`, owner.session)).result.message).to.equal(`Cannot start the virtual machine ${vm.id}: it is running (it must be stopped)`);
        expect((await call('POST', `${url}/stop`, owner.session)).result.status).to.equal('stopped');
        expect((await call('POST', `${url}/stop`, owner.session)).statusCode).to.equal(409);
        expect((await call('POST', `${url}/restart`, owner.session)).result.message).to.equal(`Cannot restart the virtual machine ${vm.id}: it is stopped (it must be running)`);
        expect((await call('POST', `${url}/start`, owner.session)).result.status).to.equal('running');

        await withoutJobs(async () => {
            const restarting = await call('POST', `${url}/restart`, owner.session);
            expect(restarting.statusCode).to.equal(202);
            expect(restarting.result.status).to.equal('restarting');
            for (const [method, path] of [['POST', 'stop'], ['POST', 'restart'], ['DELETE', '']]) {
                expect((await call(method, path ? `${url}/${path}` : url, owner.session)).result.message, path).to.include('it is restarting');
            }
        });
        await running(vm.id);

        const history = (await instance.server.app.knex('allocation_events').where({ resource_id: vm.id }).orderBy('seq')).map((row: any) => `${row.reason}:${!!row.running}`);
        expect(history).to.equal(['created:false', 'started:true', 'stopped:false', 'started:true']);
    });

    it('changes resources only while stopped: a catalogue size, and a disk that only grows', async () => {
        const vm = await create();
        await running(vm.id);
        const url = `/v1/virtual-machines/${vm.id}/resources`;
        const refused = await call('PUT', url, owner.session, { size: 's-2vcpu-4gb' });
        expect(refused.statusCode).to.equal(409);
        expect(refused.result.message).to.equal(`Cannot change the resources of the virtual machine ${vm.id}: it is running (it must be stopped)`);
        await call('POST', `/v1/virtual-machines/${vm.id}/stop`, owner.session);

        const bigger = await call('PUT', url, owner.session, { size: 's-2vcpu-4gb' });
        expect(bigger.result).to.include({ size: 's-2vcpu-4gb', vcpus: 2, memoryMiB: 4096, diskGiB: 80, status: 'stopped' });
        const smaller = await call('PUT', url, owner.session, { size: 's-1vcpu-2gb' });
        expect(smaller.result, 'the disk stays').to.include({ size: 's-1vcpu-2gb', vcpus: 1, memoryMiB: 2048, diskGiB: 80 });
        expect((await call('PUT', url, owner.session, { diskGiB: 40 })).result.message).to.equal(`A disk can only grow: the virtual machine ${vm.id} has 80 GiB`);
        expect((await call('PUT', url, owner.session, { diskGiB: 120 })).result.diskGiB).to.equal(120);
        expect((await call('PUT', url, owner.session, { size: 's-8vcpu-16gb' })).result.diskGiB).to.equal(320);
        expect((await call('PUT', url, owner.session, { size: 's-4vcpu-8gb', diskGiB: 100 })).result.message).to.equal(`A disk can only grow: the virtual machine ${vm.id} has 320 GiB`);
        expect((await call('PUT', url, owner.session, {})).statusCode).to.equal(400);
        expect((await call('PUT', url, owner.session, { diskGiB: 5000 })).result.message).to.equal('"diskGiB" must be less than or equal to 2048');

        const history = (await instance.server.app.knex('allocation_events').where({ resource_id: vm.id }).orderBy('seq')).map((row: any) => `${row.reason}:${row.plan}:${row.storage_gib}`);
        expect(history).to.equal([
            'created:s-1vcpu-1gb:25', 'started:s-1vcpu-1gb:25', 'stopped:s-1vcpu-1gb:25', 'plan:s-2vcpu-4gb:25', 'storage:s-2vcpu-4gb:80',
            'plan:s-1vcpu-2gb:80', 'storage:s-1vcpu-2gb:120', 'plan:s-8vcpu-16gb:120', 'storage:s-8vcpu-16gb:320'
        ]);
    });

    describe('the firewall', () => {

        it('starts with SSH open, and is replaced as a whole', async () => {
            const vm = await create();
            const url = `/v1/virtual-machines/${vm.id}/firewall`;
            const initial = await call('GET', url, owner.session);
            expect(initial.result).to.include({ vmId: vm.id, driver: 'records', defaultInbound: 'deny', defaultOutbound: 'allow' });
            expect(initial.result.rules).to.equal([{ protocol: 'tcp', ports: '22', source: '0.0.0.0/0', description: 'SSH' }, { protocol: 'tcp', ports: '22', source: '::/0', description: 'SSH' }]);

            const rules = [
                { protocol: 'tcp', ports: '443', source: '0.0.0.0/0', description: 'HTTPS' },
                { protocol: 'udp', ports: '60000-61000', source: '2001:DB8::/32' },
                { protocol: 'icmp', source: '10.0.0.0/8' }
            ];
            const replaced = await call('PUT', url, owner.session, { rules });
            expect(replaced.statusCode, replaced.payload).to.equal(200);
            expect(replaced.result.rules).to.equal([rules[0], { ...rules[1], source: '2001:db8::/32' }, rules[2]]);
            expect((await call('GET', url, owner.session)).result.rules).to.equal(replaced.result.rules);
            expect((await call('PUT', url, owner.session, { rules: [] })).result.rules).to.equal([]);
        });

        it('refuses an invalid rule with 400 naming the rule and the field, and keeps the rules it had', async () => {
            const vm = await create();
            const url = `/v1/virtual-machines/${vm.id}/firewall`;
            const good = { protocol: 'tcp', ports: '80', source: '0.0.0.0/0' };
            for (const [rule, message] of [
                [{ protocol: 'sctp', ports: '80', source: '0.0.0.0/0' }, '"rules[1].protocol" must be one of tcp, udp, icmp'],
                [{ protocol: 'tcp', source: '0.0.0.0/0' }, '"rules[1].ports" is required'],
                [{ protocol: 'tcp', ports: '0', source: '0.0.0.0/0' }, '"rules[1].ports" must be a port (1-65535) or a range such as 8000-8100, the lower port first'],
                [{ protocol: 'tcp', ports: '70000', source: '0.0.0.0/0' }, '"rules[1].ports" must be a port (1-65535) or a range such as 8000-8100, the lower port first'],
                [{ protocol: 'udp', ports: '9000-8000', source: '0.0.0.0/0' }, '"rules[1].ports" must be a port (1-65535) or a range such as 8000-8100, the lower port first'],
                [{ protocol: 'tcp', ports: 'http', source: '0.0.0.0/0' }, '"rules[1].ports" must be a port (1-65535) or a range such as 8000-8100, the lower port first'],
                [{ protocol: 'icmp', ports: '8', source: '0.0.0.0/0' }, '"rules[1].ports" is not allowed'],
                [{ protocol: 'tcp', ports: '80', source: 'everywhere' }, '"rules[1].source" must be a network in CIDR form, such as 203.0.113.0/24, 2001:db8::/32 or 0.0.0.0/0'],
                [{ protocol: 'tcp', ports: '80', source: '10.0.0.0/33' }, '"rules[1].source" must be a network in CIDR form, such as 203.0.113.0/24, 2001:db8::/32 or 0.0.0.0/0'],
                [{ protocol: 'tcp', ports: '80', source: '10.1.2.3/8' }, '"rules[1].source" has host bits set: write the network address (10.0.0.0/8)'],
                [{ protocol: 'tcp', ports: '80', source: '0.0.0.0/0', colour: 'red' }, '"rules[1].colour" is not allowed'],
                [good, '"rules[1]" repeats an earlier rule']
            ] as const) {
                const res = await call('PUT', url, owner.session, { rules: [good, rule] });
                expect(res.statusCode, JSON.stringify(rule)).to.equal(400);
                expect(res.result.message, JSON.stringify(rule)).to.equal(message);
            }

            expect((await call('PUT', url, owner.session, { rules: Array.from({ length: 51 }, (_, i) => ({ ...good, ports: String(i + 1) })) })).result.message).to.equal('"rules" must hold at most 50 items');
            expect((await call('GET', url, owner.session)).result.rules.map((rule: any) => rule.ports)).to.equal(['22', '22']);
        });
    });

    it('measures nothing under records: every series empty with source unavailable', async () => {
        const vm = await create();
        const all = await call('GET', `/v1/virtual-machines/${vm.id}/metrics`, owner.session);
        expect(all.result).to.include({ vmId: vm.id, driver: 'records', source: 'unavailable' });
        expect(Object.keys(all.result.metrics)).to.equal(['cpu-usage', 'memory-usage', 'network-in', 'network-out', 'disk-usage']);
        for (const [name, unit] of [['cpu-usage', 'percent'], ['memory-usage', 'bytes'], ['network-in', 'bytes'], ['network-out', 'bytes'], ['disk-usage', 'bytes']]) {
            const one = await call('GET', `/v1/virtual-machines/${vm.id}/metrics/${name}?startDate=2026-11-01&endDate=2026-11-02`, owner.session);
            expect(one.result, name).to.include({ metric: name, unit, source: 'unavailable', series: [], startDate: '2026-11-01T00:00:00.000Z', endDate: '2026-11-03T00:00:00.000Z' });
            expect(all.result.metrics[name]).to.include({ source: 'unavailable', series: [] });
        }

        expect((await call('GET', `/v1/virtual-machines/${vm.id}/metrics/cpu-usage?startDate=2026-11-02&endDate=2026-11-01`, owner.session)).statusCode).to.equal(400);
    });

    it('offers the versioned catalogue from config', async () => {
        const pricing = await call('GET', '/v1/virtual-machines/pricing', owner.session);
        expect(pricing.result).to.include({ version: '2026-11-01', currency: 'USD', driver: 'records', extraDiskPerGiBMonth: 0.1, maxDiskGiB: 2048 });
        expect(pricing.result.sizes[0]).to.equal({ slug: 's-1vcpu-1gb', vcpus: 1, memoryMiB: 1024, diskGiB: 25, pricePerHour: 0.009, pricePerMonth: 6 });

        const custom = await testServer({ vms: { driver: 'records', catalogue: { version: '2027-01', currency: 'EUR', sizes: [{ slug: 'tiny', vcpus: 1, memoryMiB: 512, diskGiB: 10, pricePerHour: 0.005, pricePerMonth: 3.5 }], images: [{ slug: 'alpine-3.21', name: 'Alpine' }], regions: ['home'], extraDiskPerGiBMonth: 0.05, maxDiskGiB: 100 } } });
        try {
            const user = await register(custom.server, 'custom');
            const call2 = caller(() => custom.server);
            expect((await call2('GET', '/v1/virtual-machines/pricing', user.session)).result).to.include({ version: '2027-01', currency: 'EUR' });
            const made = await call2('POST', '/v1/virtual-machines', user.session, { name: 'tiny', size: 'tiny', image: 'alpine-3.21', region: 'home' });
            expect(made.result).to.include({ pricingVersion: '2027-01', vcpus: 1, memoryMiB: 512, diskGiB: 10 });
        }
        finally {
            await custom.stop();
        }
    });

    it('deletes a machine deleting, then gone; its allocation history stays for billing', async () => {
        const vm = await create();
        await running(vm.id);
        const deleting = await withoutJobs(async () => {
            const res = await call('DELETE', `/v1/virtual-machines/${vm.id}`, owner.session);
            expect((await call('PUT', `/v1/virtual-machines/${vm.id}/firewall`, owner.session, { rules: [] })).result.message).to.include('it is deleting');
            return res;
        });
        expect(deleting.statusCode).to.equal(202);
        expect(deleting.result.status).to.equal('deleting');
        await eventually(async () => (await call('GET', `/v1/virtual-machines/${vm.id}`, owner.session)).statusCode, (status) => status === 404, 'the machine to go');
        const history = (await instance.server.app.knex('allocation_events').where({ resource_id: vm.id }).orderBy('seq')).map((row: any) => `${row.reason}:${!!row.running}:${row.storage_gib}`);
        expect(history).to.equal(['created:false:25', 'started:true:25', 'deleted:false:0']);
    });
});

describe('the virtual machine state machine, every state against every action', () => {

    let instance: TestServer;
    let owner: TestUser;
    const call = caller(() => instance.server);
    const STATES = ['provisioning', 'running', 'stopped', 'restarting', 'deleting', 'failed'];
    const ACTIONS: Array<{ action: string; method: string; path: string; payload?: object; allowed: string[]; verb: string }> = [
        { action: 'start', method: 'POST', path: 'start', allowed: ['stopped'], verb: 'start' },
        { action: 'stop', method: 'POST', path: 'stop', allowed: ['running'], verb: 'stop' },
        { action: 'restart', method: 'POST', path: 'restart', allowed: ['running'], verb: 'restart' },
        { action: 'resources', method: 'PUT', path: 'resources', payload: { size: 's-2vcpu-4gb' }, allowed: ['stopped'], verb: 'change the resources of' },
        { action: 'firewall', method: 'PUT', path: 'firewall', payload: { rules: [] }, allowed: ['provisioning', 'running', 'stopped', 'restarting'], verb: 'change the firewall of' },
        { action: 'delete', method: 'DELETE', path: '', allowed: ['running', 'stopped', 'failed'], verb: 'delete' }
    ];

    before(async () => {
        instance = await testServer();                          // no job runs: each state stays as it is set
        owner = await register(instance.server, 'owner');
    });

    after(async () => {
        await instance?.stop();
    });

    for (const state of STATES) {
        for (const { action, method, path, payload, allowed, verb } of ACTIONS) {
            const ok = allowed.includes(state);
            it(`${ok ? 'lets' : 'refuses with 409'} ${action} when it is ${state}`, async () => {
                const vm = (await call('POST', '/v1/virtual-machines', owner.session, { name: 'matrix', ...BODY })).result;
                await instance.server.app.knex('virtual_machines').where({ id: vm.id }).update({ status: state });
                const res = await call(method, `/v1/virtual-machines/${vm.id}${path ? `/${path}` : ''}`, owner.session, payload);
                if (ok) {
                    expect(res.statusCode, res.payload).to.be.within(200, 202);
                    return;
                }

                expect(res.statusCode).to.equal(409);
                const needs = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed[allowed.length - 1]}` : allowed[0];
                expect(res.result.message).to.equal(`Cannot ${verb} the virtual machine ${vm.id}: it is ${state} (it must be ${needs})`);
                expect((await instance.server.app.knex('virtual_machines').where({ id: vm.id }).first()).status).to.equal(state);
            });
        }
    }
});
