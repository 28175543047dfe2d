import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { createKey, register } from './helpers/api';
import { testServer } from './helpers/server';

const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('smoke', () => {

    it('registers, creates a key and lists projects with both header forms', async () => {
        const { server, stop } = await testServer();
        try {
            const user = await register(server);
            const key = await createKey(server, user, ['projects:read']);
            const raw = await server.inject({ url: '/v1/projects', headers: { authorization: key.token } });
            expect(raw.statusCode, raw.payload).to.equal(200);
            const bearer = await server.inject({ url: '/v1/projects', headers: { authorization: `Bearer ${key.token}` } });
            expect(bearer.statusCode).to.equal(200);
            expect(bearer.result).to.have.length(1);
        }
        finally {
            await stop();
        }
    });
});
