import type { Knex } from 'knex';

import type { FastReader } from '../db/fast-reader';
import type { Invitations } from '../invitations';
import { PlatformEvents } from '../events';
import { GitAccess } from '../git/access';
import { gitHosts, type GitHostsSettings } from '../git/hosts';
import type { DnsProbe } from '../outside/dns-probe';
import type { JobQueue } from '../queue/types';
import type { RuntimeDriver } from '../runtime/driver';
import type { Clock } from '../scheduler/clock';
import { Scheduler } from '../scheduler/scheduler';
import { EdgeNames } from '../edge/names';
import { Allocation } from './allocation';
import { Collaborators } from './collaborators';
import { DEPLOY_JOB, DeploymentEngine } from './deployments';
import { Domains } from './domains';
import { EnvVars } from './env-vars';
import type { Lists } from '../lists';
import { DatabaseLinks } from './links';
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
    credentialsKey: Buffer;                                     // opens the databases' sealed credentials (linked databases' URLs)
    dns: DnsProbe;
    git: GitHostsSettings;
    outboundAllowlist: readonly string[];
    invitations: Invitations;                                   // how collaborators are invited (lib/invitations.ts)
    events?: PlatformEvents;                                    // where deployments, cron runs (and other changes) are told (lib/events.ts)
    clock?: Clock;                                              // what the scheduler reads as now (tests move it)
    onError?: (err: unknown) => void;
    reservedNames?: readonly string[];                          // names the edge's name space refuses (see lib/edge/hosts.ts)
    allowFileGit?: boolean;                                     // file:// repositories (laptop mode or RUNTIME_ALLOW_FILE_GIT)
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
    scheduler: Scheduler;
    edgeNames: EdgeNames;
    links: DatabaseLinks;
    events: PlatformEvents;
    allowFileGit: boolean;
}

export function createRuntimeServices(options: RuntimeServicesOptions): RuntimeServices {
    const { knex, reader, queue, driver } = options;
    const { lists } = options;
    const logs = new LogStore(knex, reader);
    const envVars = new EnvVars(knex, options.sealKey);
    const allocation = new Allocation(options.clock ? () => options.clock!.now().toISOString() : undefined);
    const links = new DatabaseLinks(options.credentialsKey);
    const events = options.events ?? new PlatformEvents();
    const deployments = new DeploymentEngine({
        knex, driver, logs, envVars, allocation, lists, links, events,
        enqueue: async (trx, deploymentId) => {
            await queue.enqueue(DEPLOY_JOB, { deploymentId }, { trx, idempotencyKey: `deployment:${deploymentId}` });
        }
    });
    return {
        knex,
        queue,
        driver,
        lists,
        logs,
        metrics: new Metrics(knex, reader),
        envVars,
        collaborators: new Collaborators(knex, options.invitations),
        domains: new Domains(knex, queue, options.dns),
        allocation,
        deployments,
        scaling: new Scaling(knex, (kind) => deployments.driverOf(kind), allocation),
        search: new Search(knex, logs, envVars),
        traces: new Traces(knex),
        git: new GitAccess({ knex, sealKey: options.sealKey, hosts: gitHosts(options.git, options.outboundAllowlist) }),
        scheduler: new Scheduler({ knex, queue, driver, logs, lists, events, ...(options.clock ? { clock: options.clock } : {}), ...(options.onError ? { onError: options.onError } : {}) }),
        edgeNames: new EdgeNames(options.reservedNames),
        links,
        events,
        allowFileGit: options.allowFileGit ?? false
    };
}
