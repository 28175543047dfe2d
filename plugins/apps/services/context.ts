import type { Knex } from 'knex';

import type { DnsProbe } from '../../../lib/outside/dns-probe';
import type { PriceList } from '../../../lib/plans';
import type { JobQueue } from '../../../lib/queue/types';
import type { RuntimeDriver } from '../../../lib/runtime/driver';
import type { GitAccess } from './git';
import type { LogStore } from './logs';

/** What the apps services share: the database, the queue, the runtime driver and the outside-service adapters. */
export interface AppsContext {
    knex: Knex;
    queue: JobQueue;
    driver: RuntimeDriver;
    sealKey: Buffer;                                            // seals environment variable values and provider tokens
    prices: PriceList;
    git: GitAccess;
    dns: DnsProbe;
    logs: LogStore;
    reviewAppHours: number;
}
