import * as Code from '@hapi/code';
import type { ServerInjectOptions, ServerInjectResponse } from '@hapi/hapi';
import * as Lab from '@hapi/lab';

import { checksum, parseApiKey } from '../../../lib/api-key-token';
import { randomBase62 } from '../../../lib/base62';
import { sha256Hex } from '../../../lib/crypto';
import { caller, createKey, register } from '../../helpers/api';
import { digest } from '../../helpers/db';
import { fakeSecretScanning, KEYS_PATH, type FakeSecretScanning } from '../../helpers/fake-secret-scanning';
import { testServer, type TestServer } from '../../helpers/server';

// Leak reports as GitHub's secret scanning sends them, signed by the test's own key pair whose public key a fake key
// endpoint on 127.0.0.1 publishes: a real token revokes its key, a mis-signed report and a real prefix with a wrong
// secret change nothing.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const TYPE = 'hostless_api_key';
const URL_FOUND = 'https://github.com/octo/shop/blob/4f2a9c1/.env';

describe('leak reports (POST /v1/secret-scanning/report)', () => {

    let github: FakeSecretScanning;
    let instance: TestServer;
    let offset = 0;
    const call = caller(() => instance.server);
    const knex = () => instance.server.app.knex;
    const send = (tokens: unknown, signer: 'sign' | 'forge' = 'sign'): Promise<ServerInjectResponse<any>> => instance.server.inject(github.report(tokens, signer));
    const inject = (options: ServerInjectOptions): Promise<ServerInjectResponse<any>> => instance.server.inject(options);
    const keyFetches = () => github.service.requests.filter((request) => request.path === KEYS_PATH).length;

    before(async () => {
        github = await fakeSecretScanning();
        instance = await testServer({ secretScanning: { keysUrl: github.keysUrl }, outbound: { allowlist: ['127.0.0.1'] } }, { clock: { now: () => new Date(Date.now() + offset) } });
    });

    after(async () => {
        await instance?.stop();
        await github?.stop();
    });

    it('revokes the key of a reported token whose secret matches, records where it leaked, and tells the owner', async () => {
        const user = await register(instance.server, 'leaker');
        const key = await createKey(instance.server, user, ['projects:read'], { name: 'ci token' });
        const spare = await createKey(instance.server, user, ['projects:read'], { name: 'spare' });

        const res = await send([{ token: key.token, type: TYPE, url: URL_FOUND, source: 'content' }]);
        expect(res.statusCode, res.payload).to.equal(200);
        expect(res.result).to.equal([{ token_hash: sha256Hex(key.token), token_type: TYPE, label: 'true_positive' }]);
        expect(res.payload).to.not.include(parseApiKey(key.token)!.secret);

        const refused = await call('GET', '/v1/projects', key.token);
        expect(refused.statusCode).to.equal(401);
        expect(refused.result.message).to.equal('API key has been revoked');
        expect((await call('GET', '/v1/projects', spare.token)).statusCode, 'other keys keep working').to.equal(200);
        expect((await call('GET', '/v1/users/me/api-keys', user.session)).result.map((k: { id: string }) => k.id)).to.equal([spare.id]);

        const row = await knex()('api_keys').where({ id: key.id }).first();
        expect(row).to.include({ revoked_reason: 'leaked', leak_url: URL_FOUND, leak_source: 'content' });
        expect(row.leaked_at).to.equal(row.revoked_at);

        const events = (await call('GET', '/v1/users/me/security-events', user.session)).result as Array<{ type: string; actor: string; credentialId: string; data: Record<string, unknown> }>;
        const leaked = events.find((event) => event.type === 'api_key.leaked')!;
        expect(leaked).to.include({ actor: 'secret-scanning', credentialId: key.id });
        expect(leaked.data).to.include({ name: 'ci token', url: URL_FOUND, source: 'content', type: TYPE, token: 'current' });

        const [notice] = await knex()('notifications').where({ user_id: user.id, type: 'security.api_key_leaked' });
        expect(notice.subject).to.equal('Your API key ci token was found in public and revoked');
        expect(notice.body).to.include(URL_FOUND).and.to.include('the key was revoked at');
        expect(notice.body).to.not.include(parseApiKey(key.token)!.secret);

        const again = await send([{ token: key.token, type: TYPE, url: URL_FOUND }]);
        expect(again.result[0].label, 'a second report of the same token').to.equal('true_positive');
        expect(await knex()('notifications').where({ user_id: user.id, type: 'security.api_key_leaked' })).to.have.length(1);
    });

    it('changes nothing for a mis-signed report, an unsigned one, or one naming an unknown key', async () => {
        const user = await register(instance.server);
        const key = await createKey(instance.server, user, ['projects:read']);
        const tokens = [{ token: key.token, type: TYPE, url: URL_FOUND }];
        const before = await digest(knex());

        const forged = await send(tokens, 'forge');
        expect(forged.statusCode).to.equal(401);
        expect(forged.result.message).to.equal('The report\'s signature does not verify');

        const signed = github.report(tokens);
        const tampered = await inject({ ...signed, payload: JSON.stringify([{ token: key.token, type: TYPE, url: 'https://example.com/x' }]) });
        expect(tampered.statusCode, 'a body changed after signing').to.equal(401);

        const unsigned = await inject({ method: 'POST', url: '/v1/secret-scanning/report', payload: tokens });
        expect(unsigned.statusCode).to.equal(401);
        expect(unsigned.result.message).to.include('not signed');

        const unknown = await inject({ ...signed, headers: { ...signed.headers, 'github-public-key-identifier': 'f'.repeat(64) } });
        expect(unknown.statusCode, 'an identifier not published (yet): send it again later').to.equal(503);

        const garbled = await inject({ ...signed, headers: { ...signed.headers, 'github-public-key-signature': 'not base64 at all!' } });
        expect(garbled.statusCode).to.equal(401);

        expect(await digest(knex())).to.equal(before);
        expect((await call('GET', '/v1/projects', key.token)).statusCode).to.equal(200);
    });

    it('answers false_positive for a real prefix with a wrong secret (a valid checksum), and revokes nothing', async () => {
        const user = await register(instance.server);
        const key = await createKey(instance.server, user, ['projects:read']);
        const { prefix } = parseApiKey(key.token)!;
        const body = randomBase62(43);
        const forgedToken = `svk_${prefix}_${body}${checksum(prefix, body)}`;
        const before = await digest(knex());

        const res = await send([
            { token: forgedToken, type: TYPE, url: URL_FOUND },
            { token: `${key.token.slice(0, -1)}${key.token.endsWith('a') ? 'b' : 'a'}`, type: TYPE, url: URL_FOUND },
            { token: 'svk_nothing_here', type: TYPE, url: '' },
            { token: 'ghp_notoursatall', type: 'github_pat', url: URL_FOUND }
        ]);
        expect(res.statusCode).to.equal(200);
        expect(res.result.map((item: { label: string }) => item.label)).to.equal(['false_positive', 'false_positive', 'false_positive', 'false_positive']);
        expect(res.result[0].token_hash).to.equal(sha256Hex(forgedToken));
        expect(await digest(knex())).to.equal(before);
        expect((await call('GET', '/v1/projects', key.token)).statusCode).to.equal(200);
    });

    it('ends the overlap when the token a roll replaced is reported, and keeps the key\'s current token', async () => {
        const user = await register(instance.server);
        const key = await createKey(instance.server, user, ['projects:read']);
        const rolled = await call('POST', `/v1/users/me/api-keys/${key.id}/roll`, user.session, { overlapSeconds: 3600 });
        expect((await call('GET', '/v1/projects', key.token)).statusCode).to.equal(200);

        const res = await send([{ token: key.token, type: TYPE, url: URL_FOUND }]);
        expect(res.result[0].label).to.equal('true_positive');
        expect((await call('GET', '/v1/projects', key.token)).statusCode).to.equal(401);
        expect((await call('GET', '/v1/projects', rolled.result.token)).statusCode).to.equal(200);
        expect((await call('GET', `/v1/users/me/api-keys/${key.id}/policy`, user.session)).result.overlap).to.equal(null);
        const [notice] = await knex()('notifications').where({ user_id: user.id, type: 'security.api_key_leaked' });
        expect(notice.body).to.include('Its current token keeps working');
    });

    it('validates the report after its signature: JSON, a list of {token, type, url}, at most 1 MiB', async () => {
        const bad = async (body: string, message: string) => {
            const res = await inject({ method: 'POST', url: '/v1/secret-scanning/report', ...github.sign(body) });
            expect(res.statusCode, body.slice(0, 40)).to.equal(400);
            expect(res.result.message).to.equal(message);
        };

        await bad('{"token":', 'The request body is not valid JSON');
        await bad('{"token":"x"}', 'The request body must be a non-empty list of {"token", "type", "url"} objects');
        await bad('[]', 'The request body must be a non-empty list of {"token", "type", "url"} objects');
        await bad('[{"token":"x","type":"t"}]', '"[0].url" is required');
        await bad('[{"token":"x","type":"t","url":"","extra":1}]', '"[0].extra" is not allowed');

        const huge = JSON.stringify([{ token: 'x'.repeat(1024 * 1024), type: TYPE, url: '' }]);
        const tooLarge = await inject({ method: 'POST', url: '/v1/secret-scanning/report', ...github.sign(huge) });
        expect(tooLarge.statusCode).to.equal(413);

        const form = await inject({ method: 'POST', url: '/v1/secret-scanning/report', ...github.sign('[]'), headers: { ...github.sign('[]').headers, 'content-type': 'text/plain' } });
        expect(form.statusCode).to.equal(415);
    });

    it('keeps the reporter\'s keys, fetching them again for an unknown identifier at most once a minute', async () => {
        const user = await register(instance.server);
        const key = await createKey(instance.server, user, ['projects:read']);
        const body = [{ token: `svk_${randomBase62(10)}_${randomBase62(49)}`, type: TYPE, url: '' }];
        await send(body);
        const fetched = keyFetches();
        await send(body);
        await send(body);
        expect(keyFetches(), 'known keys are not fetched again').to.equal(fetched);

        // The reporter signs with a new key from now on: within a minute of the last fetch the report is answered
        // "later" (503 with Retry-After), then the keys are fetched again and the report verifies.
        github.rotate();
        const soon = await send(body);
        expect(soon.statusCode).to.equal(503);
        expect(soon.headers['retry-after']).to.equal('60');
        expect(keyFetches()).to.equal(fetched);
        offset += 61_000;
        expect((await send(body)).statusCode, 'the new key was fetched').to.equal(200);
        expect(keyFetches()).to.equal(fetched + 1);

        // An identifier the reporter never published: "later" within the minute, 401 once the keys were fetched.
        const unknown = github.report(body);
        unknown.headers = { ...unknown.headers as Record<string, string>, 'github-public-key-identifier': 'a'.repeat(64) };
        expect((await inject(unknown)).statusCode).to.equal(503);
        expect((await inject(unknown)).statusCode).to.equal(503);
        expect(keyFetches(), 'forged identifiers within the minute fetch nothing').to.equal(fetched + 1);
        offset += 61_000;
        expect((await inject(unknown)).statusCode).to.equal(401);
        expect(keyFetches()).to.equal(fetched + 2);
        expect((await inject(unknown)).statusCode).to.equal(503);
        expect((await call('GET', '/v1/projects', key.token)).statusCode).to.equal(200);
    });

    it('answers 503 when the reporter\'s keys cannot be fetched, so the reporter sends it again', async () => {
        const unreachable = await testServer({ secretScanning: { keysUrl: 'http://127.0.0.1:1/meta/public_keys/secret_scanning' }, outbound: { allowlist: ['127.0.0.1'] } });
        const refused = await testServer({ secretScanning: { keysUrl: github.keysUrl } });       // 127.0.0.1 is a private address
        try {
            for (const server of [unreachable, refused]) {
                const res: ServerInjectResponse<any> = await server.server.inject(github.report([{ token: 'svk_x', type: TYPE, url: '' }]));
                expect(res.statusCode).to.equal(503);
                expect(res.result.message).to.equal('The reporter\'s public keys could not be fetched: send the report again later');
            }
        }
        finally {
            await unreachable.stop();
            await refused.stop();
        }
    });
});
