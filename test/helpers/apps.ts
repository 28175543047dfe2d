import type { Server } from '@hapi/hapi';

import { deriveKey, encryptSecret } from '../../lib/crypto';
import { newId } from '../../lib/ids';
import { caller, type TestUser } from './api';

// Helpers for the apps tests: make an app through the API, wait for work done by jobs, and stand in for the Git
// connect flow (which the Git family brings) by recording a project's connection to a fake GitHub.

export async function createApp(server: Server, user: TestUser, body: Record<string, unknown> = {}): Promise<any> {
    const res = await caller(() => server)('POST', '/v1/apps', user.session, { name: `app-${Math.random().toString(36).slice(2, 10)}`, ...body });
    if (res.statusCode !== 201) {
        throw new Error(`app creation failed: ${res.statusCode} ${res.payload}`);
    }

    return res.result;
}

export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (; ;) {
        const value = await read();
        if (done(value)) {
            return value;
        }

        if (Date.now() > deadline) {
            throw new Error(`timed out waiting for ${what}: last saw ${JSON.stringify(value)}`);
        }

        await new Promise((resolve) => setTimeout(resolve, 20));
    }
}

export async function deploymentSettled(server: Server, user: TestUser, appName: string, deploymentId: string): Promise<any> {
    const call = caller(() => server);
    return eventually(async () => (await call('GET', `/v1/apps/${appName}/deployments/${deploymentId}`, user.session)).result,
        (deployment: any) => ['live', 'failed', 'superseded', 'canceled'].includes(deployment.status), `deployment ${deploymentId}`);
}

export async function connectGitHub(server: Server, projectId: string, token: string, login = 'octo-dev'): Promise<void> {
    const key = deriveKey(server.app.config.encryptionKey, 'secrets-at-rest');
    const now = new Date().toISOString();
    await server.app.knex('git_connections').insert({
        id: newId('col'), project_id: projectId, provider: 'github', account_login: login, token: encryptSecret(token, key), created_by: null, created_at: now, updated_at: now
    });
}
