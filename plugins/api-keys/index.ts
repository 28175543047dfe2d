import type { Knex } from 'knex';

import { OutsideClient } from '../../lib/outside/http-client';
import { periodicJob } from '../../lib/queue/periodic';
import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { ReporterKeys } from '../../lib/secret-scanning';
import { apiKeysTable } from '../../manifest/routes/api-keys';
import { apiKeyRoutes } from './routes/api-keys';
import { secretScanningRoutes } from './routes/secret-scanning';
import { ApiKeysService } from './services/api-keys';
import { KeyExtrasService } from './services/key-extras';
import { LeakReports } from './services/leaks';
import { sendExpiryReminders } from './services/reminders';

// Key management: create (token shown once), list, revoke, roll, policy and health; leak reports; expiry reminders
// every hour through the outbox. The access pipeline authenticates keys.
export interface ApiKeysPluginOptions {
    knex: Knex;
    maxLifetimeDays?: number | null;                            // API_KEY_MAX_LIFETIME_DAYS
    secretScanning?: { keysUrl: string; allowlist?: readonly string[] };
    clock?: () => number;
}

export const REMINDER_JOB = 'api-keys.expiry-reminders';
export const GITHUB_SECRET_SCANNING_KEYS = 'https://api.github.com/meta/public_keys/secret_scanning';

export const apiKeysPlugin: FamilyPlugin<ApiKeysPluginOptions> = {
    name: 'hostless-api-keys',
    table: apiKeysTable,
    dependencies: ['hostless-auth', 'hostless-notifications', 'hostless-jobs'],
    register(server, options) {
        const clock = options.clock ?? Date.now;
        const { lists } = server.plugins['hostless-auth'];
        const { outbox } = server.plugins['hostless-notifications'];
        const { queue } = server.plugins['hostless-jobs'];
        const keys = new ReporterKeys({
            url: options.secretScanning?.keysUrl ?? GITHUB_SECRET_SCANNING_KEYS,
            client: new OutsideClient({ service: 'secret scanning keys', allowlist: options.secretScanning?.allowlist ?? [], maxResponseBytes: 256 * 1024 }),
            clock
        });

        bindRoutes(server, apiKeysTable, {
            ...apiKeyRoutes(new ApiKeysService(options.knex, lists, outbox, { maxLifetimeDays: options.maxLifetimeDays ?? null, clock }), new KeyExtrasService(options.knex, lists, outbox, clock)),
            ...secretScanningRoutes(new LeakReports(options.knex, outbox, clock), keys)
        });
        server.ext('onPostStart', periodicJob(queue, REMINDER_JOB, 3600_000, () => sendExpiryReminders(options.knex, outbox, clock())));
    }
};
