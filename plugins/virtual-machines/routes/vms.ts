import type { ReqRef, Request } from '@hapi/hapi';
import Joi from 'joi';

import { access } from '../../../lib/access';
import { respondWithPage } from '../../../lib/list-response';
import { listQuery } from '../../../lib/pagination';
import { kindRef } from '../../../lib/resources/kinds';
import { metricRange, metricsQuery, type MetricName } from '../../../lib/resources/metrics';
import { route, type RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { firewallBody } from '../../../lib/vm/firewall';
import { VirtualMachine } from '../models/vm';
import { serializeFirewall, serializeVm } from '../serializers';
import type { VmCreate, VmsService } from '../services/vms';

// Thin handlers over the VMs service; the pipeline resolved (and loaded) the VM each path names.
export const VM = kindRef<VirtualMachine>('vm');
export const VM_METRICS: readonly MetricName[] = ['cpu-usage', 'memory-usage', 'network-in', 'network-out', 'disk-usage'];

const params = Joi.object<{ id: string }, true>({ id: fields.id('vm').required() });
const page = { ...listQuery };
const camel = (name: string) => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

export function vmRoutes(vms: VmsService): RouteHandlers {
    const { services, catalogue, driver } = vms.options;
    const create = Joi.object<VmCreate, true>({
        projectId: fields.projectId().description('The project to create it in. Required with an API key or OAuth token; a user session uses the personal project when omitted.'),
        name: fields.name().required().description('Its hostname: a DNS label (not unique; VMs are addressed by id).'),
        size: Joi.string().valid(...catalogue.sizes.map((size) => size.slug)).required().description('A size of GET /virtual-machines/pricing.'),
        image: Joi.string().valid(...catalogue.images.map((image) => image.slug)).required().description('An image of GET /virtual-machines/pricing.'),
        region: Joi.string().valid(...catalogue.regions).required().description('A region of GET /virtual-machines/pricing.'),
        sshKeys: Joi.array().items(fields.id('ssh')).max(20).unique().description('Ids of your SSH keys to install (default: all of them).')
    });
    const resources = Joi.object<{ size?: string; diskGiB?: number }, true>({
        size: Joi.string().valid(...catalogue.sizes.map((size) => size.slug)).description('The new size (CPU and memory).'),
        diskGiB: Joi.number().integer().min(1).max(catalogue.maxDiskGiB).description('The new disk size in GiB; a disk only grows.')
    }).min(1);
    const list = <Refs extends ReqRef>(request: Request<Refs>, projectId: string | null, query: { limit: number; cursor?: string | undefined }) => {
        const { user, pinnedProjects } = access(request);
        return services.lists.reachable({ kind: 'vm', table: 'virtual_machines', projectColumn: 'project_id' }, { userId: user.id, projectId, pinnedProjects },
            query, (row) => VirtualMachine.fromDatabaseJson(row));
    };
    const series = (vm: VirtualMachine, name: MetricName, query: Parameters<typeof metricRange>[0]) => services.metrics.series(vm.id, name, metricRange(query), driver.observes(name));

    const handlers: RouteHandlers = {
        'vms.list': route({
            query: Joi.object<{ limit: number; cursor?: string; projectId?: string }, true>({ ...page, projectId: fields.projectId() }),
            handler: async (request, h) => respondWithPage(request, h, await list(request, access(request).project?.id ?? null, request.query), serializeVm)
        }),
        'vms.byProject': route({
            params: Joi.object<{ projectId: string }, true>({ projectId: fields.projectId().required() }),
            query: Joi.object<{ limit: number; cursor?: string }, true>(page),
            handler: async (request, h) => respondWithPage(request, h, await list(request, access(request).project!.id, request.query), serializeVm)
        }),
        'vms.pricing': route({ handler: () => ({ ...catalogue, driver: driver.name }) }),
        'vms.get': route({ params, handler: (request) => serializeVm(VM.of(request)) }),
        'vms.create': route({
            payload: create,
            handler: async (request, h) => {
                const { project, user } = access(request);
                return h.response(serializeVm(await vms.create(project!.id, user.id, request.payload))).code(201);
            }
        }),
        'vms.start': route({ params, handler: async (request) => serializeVm(await vms.start(VM.of(request))) }),
        'vms.stop': route({ params, handler: async (request) => serializeVm(await vms.stop(VM.of(request))) }),
        'vms.restart': route({ params, handler: async (request, h) => h.response(serializeVm(await vms.restart(VM.of(request)))).code(202) }),
        'vms.resources': route({ params, payload: resources, handler: async (request) => serializeVm(await vms.resize(VM.of(request), request.payload)) }),
        'vms.firewall.get': route({ params, handler: (request) => serializeFirewall(VM.of(request)) }),
        'vms.firewall.put': route({ params, payload: firewallBody, handler: async (request) => serializeFirewall(await vms.setFirewall(VM.of(request), request.payload.rules)) }),
        'vms.delete': route({ params, handler: async (request, h) => h.response(serializeVm(await vms.remove(VM.of(request)))).code(202) }),
        'vms.metrics': route({
            params,
            query: metricsQuery,
            handler: async (request) => {
                const vm = VM.of(request);
                const all = await Promise.all(VM_METRICS.map((name) => series(vm, name, request.query)));
                return {
                    vmId: vm.id,
                    driver: vm.driver,
                    source: all.some((one) => one.source === 'measured') ? 'measured' : 'unavailable',
                    metrics: Object.fromEntries(VM_METRICS.map((name, i) => [name, all[i]]))
                };
            }
        })
    };
    for (const name of VM_METRICS) {
        handlers[`vms.metrics.${camel(name)}`] = route({ params, query: metricsQuery, handler: (request) => series(VM.of(request), name, request.query) });
    }

    return handlers;
}
