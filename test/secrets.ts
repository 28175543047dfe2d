import * as Code from '@hapi/code';
import type { ServerInjectResponse } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { parseApiKey } from '../lib/api-key-token';
import { PASSWORD, register } from './helpers/api';
import { dump } from './helpers/db';
import { testServer } from './helpers/server';
import { sshPublicKey } from './helpers/ssh';

// No secret in clear, anywhere: after a full session of use, the database and the server's log are searched for
// every secret the run produced (passwords, key tokens and secrets, access and refresh tokens).
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('secrets at rest and in logs', () => {

    it('are found in neither the database nor the log after a full flow', async () => {
        const instance = await testServer();
        const secrets: string[] = [PASSWORD, 'the second password'];
        const call = async (method: string, url: string, authorization?: string, payload?: object): Promise<ServerInjectResponse<any>> => {
            const res: ServerInjectResponse<any> = await instance.server.inject({ method, url, headers: authorization ? { authorization } : {}, ...(payload ? { payload } : {}) });
            for (const field of ['accessToken', 'refreshToken', 'token'] as const) {
                if (typeof res.result?.[field] === 'string') {
                    secrets.push(res.result[field]);
                }
            }

            return res;
        };

        try {
            const user = await register(instance.server, 'secretive');
            secrets.push(user.accessToken, user.refreshToken);
            const login = await call('POST', '/v1/auth/login', undefined, { email: user.email, password: PASSWORD });
            await call('POST', '/v1/auth/login', undefined, { email: user.email, password: 'a wrong password' });
            const refreshed = await call('POST', '/v1/auth/refresh', undefined, { refreshToken: login.result.refreshToken });
            await call('POST', '/v1/auth/refresh', undefined, { refreshToken: login.result.refreshToken });
            const session = `Bearer ${refreshed.result.accessToken}`;
            const key = await call('POST', '/v1/users/me/api-keys', user.session, { name: 'ci', scopes: ['projects:read'] });
            secrets.push(parseApiKey(key.result.token)!.secret);
            await call('GET', '/v1/projects', key.result.token);
            await call('GET', `/v1/projects?api_key=${key.result.token}`);
            await call('GET', `/v1/${key.result.token}`, key.result.token);
            await call('POST', '/v1/users/me/ssh-keys', user.session, { publicKey: sshPublicKey() });
            await call('PATCH', '/v1/users/me', user.session, { password: 'the second password', currentPassword: PASSWORD });
            await call('DELETE', `/v1/users/me/api-keys/${key.result.apiKey.id}`, user.session);
            await call('GET', '/v1/projects', key.result.token);
            await call('POST', '/v1/auth/logout', session);

            const database = JSON.stringify(await dump(instance.server.app.knex));
            const log = instance.logs.join('');
            expect(log).to.include('"route":"auth.refresh"');
            expect(secrets.length).to.be.at.least(10);
            for (const secret of secrets) {
                expect(database.includes(secret), `database holds ${secret.slice(0, 8)}...`).to.be.false();
                expect(log.includes(secret), `log holds ${secret.slice(0, 8)}...`).to.be.false();
            }
        }
        finally {
            await instance.stop();
        }
    });
});
