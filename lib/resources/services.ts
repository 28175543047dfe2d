import type { Knex } from 'knex';

import type { FastReader } from '../db/fast-reader';
import { PlatformEvents } from '../events';
import { GitAccess } from '../git/access';
import { gitHosts, type GitHostsSettings } from '../git/hosts';
import type { DnsProbe } from '../outside/dns-probe';
import type { JobQueue } from '../queue/types';
import type { RuntimeDriver } from '../runtime/driver';
import { Allocation } from './allocation';
import { Collaborators } from './collaborators';
import { DEPLOY_JOB, DeploymentEngine } from './deployments';
import { Domains } from './domains';
import { EnvVars } from './env-vars';
import type { Lists } from '../lists';
import { LogStore } from './logs';
import { Metrics } from './metrics';
import { Scaling } from './scaling';
import { Search } from './search';
import { Traces } from './traces';

// The runtime-resource mechanisms, built once per server and shared by every runtime family.
export interface RuntimeServicesOptions {
    knex: Knex;
    reader: FastReader;
    lists: Lists;
    queue: JobQueue;
    driver: RuntimeDriver;
    sealKey: Buffer;                                            // seals environment variable values and provider tokens
    dns: DnsProbe;
    git: GitHostsSettings;
    outboundAllowlist: readonly string[];
    events?: PlatformEvents;                                    // where deployments (and other changes) are told (lib/events.ts)
}

export interface RuntimeServices {
    knex: Knex;
    queue: JobQueue;
    driver: RuntimeDriver;
    lists: Lists;
    logs: LogStore;
    metrics: Metrics;
    envVars: EnvVars;
    collaborators: Collaborators;
    domains: Domains;
    allocation: Allocation;
    deployments: DeploymentEngine;
    scaling: Scaling;
    search: Search;
    traces: Traces;
    git: GitAccess;
    events: PlatformEvents;
}

export function createRuntimeServices(options: RuntimeServicesOptions): RuntimeServices {
    const { knex, reader, queue, driver } = options;
    const { lists } = options;
    const logs = new LogStore(knex, reader);
    const envVars = new EnvVars(knex, options.sealKey);
    const allocation = new Allocation();
    const events = options.events ?? new PlatformEvents();
    return {
        knex,
        queue,
        driver,
        lists,
        logs,
        metrics: new Metrics(knex, reader),
        envVars,
        collaborators: new Collaborators(knex),
        domains: new Domains(knex, queue, options.dns),
        allocation,
        deployments: new DeploymentEngine({
            knex, driver, logs, envVars, allocation, lists, events,
            enqueue: async (trx, deploymentId) => {
                await queue.enqueue(DEPLOY_JOB, { deploymentId }, { trx, idempotencyKey: `deployment:${deploymentId}` });
            }
        }),
        scaling: new Scaling(knex, driver, allocation),
        search: new Search(knex, logs, envVars),
        traces: new Traces(knex),
        git: new GitAccess({ knex, sealKey: options.sealKey, hosts: gitHosts(options.git, options.outboundAllowlist) }),
        events
    };
}
