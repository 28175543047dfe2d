import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { generateApiKey } from '../../lib/api-key-token';
import { runCli, USAGE } from '../../manifest/cli';
import { createKey, login, register } from '../helpers/api';
import { testServer } from '../helpers/server';

// The operator commands act on the same database as a running server, and take effect at its next request.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('operator CLI', () => {

    it('grants and revokes platform admin', async () => {
        const instance = await testServer();
        try {
            const user = await register(instance.server);
            const out: string[] = [];
            expect(await runCli(['admin', 'grant', user.email.toUpperCase()], instance.config, (line) => out.push(line))).to.equal(0);
            expect(out).to.equal([`${user.email} is a platform admin.`]);
            expect((await instance.server.inject({ url: '/v1/users/me', headers: { authorization: user.session } })).result).to.include({ isAdmin: true });
            expect(await runCli(['admin', 'revoke', user.email], instance.config, () => { })).to.equal(0);
            expect((await instance.server.inject({ url: '/v1/auth/introspect', headers: { authorization: user.session } })).result).to.include({ isAdmin: false });
        }
        finally {
            await instance.stop();
        }
    });

    it('disables a user, whose keys and sessions are refused at the next request, and enables them again', async () => {
        const instance = await testServer();
        try {
            const user = await register(instance.server);
            const key = await createKey(instance.server, user, ['projects:read']);
            expect(await runCli(['user', 'disable', user.email], instance.config, () => { })).to.equal(0);
            for (const authorization of [key.token, user.session]) {
                expect((await instance.server.inject({ url: '/v1/projects', headers: { authorization } })).statusCode).to.equal(401);
            }

            expect((await instance.server.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: user.email, password: user.password } })).result).to.include({ message: 'Account is disabled' });

            expect(await runCli(['user', 'enable', user.email], instance.config, () => { })).to.equal(0);
            expect((await instance.server.inject({ url: '/v1/projects', headers: { authorization: key.token } })).statusCode).to.equal(200);
            expect((await instance.server.inject({ url: '/v1/projects', headers: { authorization: user.session } })).statusCode, 'old sessions stay ended').to.equal(401);
            const fresh = await login(instance.server, user);
            expect((await instance.server.inject({ url: '/v1/projects', headers: { authorization: fresh.session } })).statusCode).to.equal(200);
        }
        finally {
            await instance.stop();
        }
    });

    it('prints the usage for an unknown command and says so for an unknown email', async () => {
        const instance = await testServer();
        try {
            const out: string[] = [];
            expect(await runCli(['admin', 'promote', 'x@y.z'], instance.config, (line) => out.push(line))).to.equal(2);
            expect(out).to.equal([USAGE]);
            expect(await runCli(['user', 'disable', 'nobody@example.test'], instance.config, (line) => out.push(line))).to.equal(1);
            expect(out[1]).to.equal('No user with the email nobody@example.test.');
        }
        finally {
            await instance.stop();
        }
    });

    it('checks a token offline with keys check, without configuration or database, never printing its secret', async () => {
        const { token, prefix, secret } = generateApiKey();
        const noConfig = () => {
            throw new Error('keys check loaded the configuration');
        };
        const out: string[] = [];
        expect(await runCli(['keys', 'check', token], noConfig, (line) => out.push(line))).to.equal(0);
        expect(out).to.equal([`A well-formed Hostless API key: svk_${prefix}_..., checksum valid. Whether it is live only the server that issued it can tell.`]);

        expect(await runCli(['keys', 'check', `${token.slice(0, -1)}${token.endsWith('a') ? 'b' : 'a'}`], noConfig, (line) => out.push(line))).to.equal(1);
        expect(out[1]).to.equal(`Not a Hostless API key: its checksum does not match: a character of svk_${prefix}_... was changed, or it was made up.`);
        expect(await runCli(['keys', 'check', '-'], noConfig, (line) => out.push(line), () => Promise.resolve(`${token}\n`))).to.equal(0);
        expect(await runCli(['keys', 'check', 'hello'], noConfig, (line) => out.push(line))).to.equal(1);
        expect(out[3]).to.equal('Not a Hostless API key: it does not start with svk_.');
        expect(out.join('\n')).to.not.include(secret);
    });
});
