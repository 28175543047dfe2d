import * as Crypto from 'node:crypto';

import { primaryDatabaseName, type TestDataConfig } from '../../lib/test-data/gates';
import type { Config } from '../../manifest/config';
import { createKey, register, type TestUser } from '../helpers/api';
import { dropPostgresDatabase, migratedDatabase, testServer, usePostgres, type TestServer } from '../helpers/server';

// A server with the test-data gates open: NODE_ENV development (local for dashboard fixtures), a fresh environment
// name (so its disposable database is this run's own), and the allow-list filled in once the user exists.

export const PLACEHOLDER = 'usr_0000000000000000';

export interface TestDataServer {
    instance: TestServer;
    env: string;
    config: TestDataConfig;
    user: TestUser;
    key: string;
    call(method: string, url: string, payload?: object, authorization?: string): Promise<{ statusCode: number; result: any }>;
    stop(): Promise<void>;
}

export async function testDataServer(options: { nodeEnv?: string; dashboard?: boolean; overrides?: Partial<Config> } = {}): Promise<TestDataServer> {
    const env = `t${Crypto.randomBytes(5).toString('hex')}`;
    // On PostgreSQL the server's own database is made first, since a dashboard environment names it (the primary
    // database); SQLite's is always `hostless` (the file hostless.sqlite in the server's folder).
    const primary = usePostgres && !options.overrides?.database ? await migratedDatabase('') : null;
    const config: TestDataConfig = {
        enabled: true, userIds: [PLACEHOLDER], dashboardEnabled: !!options.dashboard,
        environments: { [env]: { database: `hostless_test_${env}` }, ...(options.dashboard ? { dashboard: { database: primary ? primaryDatabaseName(primary.database) : 'hostless', dashboardFixtures: true } } : {}) }
    };
    const instance = await testServer({ nodeEnv: options.nodeEnv ?? (options.dashboard ? 'local' : 'development'), testData: config, ...options.overrides, ...(primary ? { database: primary.database } : {}) });
    const user = await register(instance.server, 'testdata');
    (config.userIds as string[]).push(user.id);
    const { token } = await createKey(instance.server, user, ['test-data:read', 'test-data:write', 'test-data:delete', 'projects:read']);
    const call = async (method: string, url: string, payload?: object, authorization = token) => {
        const res = await instance.server.inject({ method, url, headers: { authorization }, ...(payload ? { payload } : {}) });
        return { statusCode: res.statusCode, result: res.result as any };
    };

    return {
        instance, env, config, user, key: token, call,
        stop: async () => {
            await instance.stop();
            await primary?.drop();
            await dropDisposable(`hostless_test_${env}`);
        }
    };
}

/** Drops a PostgreSQL disposable database (SQLite's lives in the server's temp folder, removed with it). */
export async function dropDisposable(name: string): Promise<void> {
    if (usePostgres) {
        await dropPostgresDatabase(name);
    }
}

/** Plans and applies a scenario; answers the plan and the apply. */
export async function planAndApply(server: TestDataServer, plan: Record<string, unknown>, key = Crypto.randomUUID()) {
    const planned = await server.call('POST', '/v1/test-data/scenarios', { environment: server.env, ...plan });
    if (planned.statusCode !== 201) {
        throw new Error(`plan failed: ${planned.statusCode} ${JSON.stringify(planned.result)}`);
    }

    const applied = await server.call('POST', `/v1/test-data/scenarios/${planned.result.scenarioId}/apply`, { environment: plan.environment ?? server.env, digest: planned.result.digest, idempotencyKey: key });
    return { planned: planned.result, applied: applied.result, status: applied.statusCode };
}

/** Every record of a scenario's manifest, page by page. */
export async function manifestOf(server: TestDataServer, scenarioId: string): Promise<any[]> {
    const items = [];
    let cursor: number | null = 0;
    while (cursor !== null) {
        const page = await server.call('GET', `/v1/test-data/scenarios/${scenarioId}?limit=100&cursor=${cursor}`);
        items.push(...page.result.manifest.items);
        cursor = page.result.manifest.next;
    }

    return items;
}
