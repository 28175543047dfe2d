import * as ChildProcess from 'node:child_process';
import * as Crypto from 'node:crypto';
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { parseSshPublicKey } from '../../../plugins/accounts/ssh-public-key';
import { caller, register } from '../../helpers/api';
import { testServer, type TestServer } from '../../helpers/server';
import { sshPublicKey } from '../../helpers/ssh';

const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const field = (buffer: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(buffer.length);
    return Buffer.concat([length, buffer]);
};

function rsaPublicKey(bits: number): string {
    const { publicKey } = Crypto.generateKeyPairSync('rsa', { modulusLength: bits });
    const jwk = publicKey.export({ format: 'jwk' });
    const mpint = (b64: string) => {
        const raw = Buffer.from(b64, 'base64url');
        return field(raw[0] & 0x80 ? Buffer.concat([Buffer.from([0]), raw]) : raw);
    };

    return `ssh-rsa ${Buffer.concat([field(Buffer.from('ssh-rsa')), mpint(jwk.e!), mpint(jwk.n!)]).toString('base64')} rsa@host`;
}

function hasSshKeygen(): boolean {
    return ChildProcess.spawnSync('ssh-keygen', ['-?'], { stdio: 'ignore' }).error === undefined;
}

describe('SSH keys', () => {

    let instance: TestServer;
    const call = caller(() => instance.server);

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    it('adds a key with the fingerprint ssh-keygen prints, lists and removes it', async () => {
        const user = await register(instance.server);
        const line = sshPublicKey('ada@laptop');
        const res = await call('POST', '/v1/users/me/ssh-keys', user.session, { publicKey: line });
        expect(res.statusCode).to.equal(201);
        expect(res.result.name).to.equal('ada@laptop');
        expect(res.result.publicKey).to.equal(line.split(' ').slice(0, 2).join(' '));

        const blob = Buffer.from(line.split(' ')[1], 'base64');
        expect(res.result.fingerprint).to.equal(`SHA256:${Crypto.createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`);
        if (hasSshKeygen()) {
            const file = Path.join(Fs.mkdtempSync(Path.join(Os.tmpdir(), 'ssh-')), 'key.pub');
            Fs.writeFileSync(file, `${line}\n`);
            expect(ChildProcess.execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', file], { encoding: 'utf8' })).to.include(res.result.fingerprint);
        }

        const listed = await call('GET', '/v1/users/me/ssh-keys', user.session);
        expect(listed.result).to.equal([res.result]);
        expect((await call('DELETE', `/v1/users/me/ssh-keys/${res.result.id}`, user.session)).statusCode).to.equal(204);
        expect((await call('GET', '/v1/users/me/ssh-keys', user.session)).result).to.equal([]);
    });

    it('refuses the same key twice, a short RSA key and a malformed one', async () => {
        const user = await register(instance.server);
        const line = sshPublicKey();
        expect((await call('POST', '/v1/users/me/ssh-keys', user.session, { publicKey: line })).statusCode).to.equal(201);
        const twice = await call('POST', '/v1/users/me/ssh-keys', user.session, { publicKey: line });
        expect(twice.statusCode).to.equal(409);

        const short = await call('POST', '/v1/users/me/ssh-keys', user.session, { publicKey: rsaPublicKey(1024) });
        expect(short.statusCode).to.equal(400);
        expect(short.result.message).to.equal('"publicKey" is an RSA key shorter than 2048 bits');
        expect((await call('POST', '/v1/users/me/ssh-keys', user.session, { publicKey: rsaPublicKey(2048) })).statusCode).to.equal(201);

        const mismatched = line.replace('ssh-ed25519', 'ssh-rsa');
        expect((await call('POST', '/v1/users/me/ssh-keys', user.session, { publicKey: mismatched })).result.message).to.equal('"publicKey" has a key blob that does not match its type');
        expect((await call('POST', '/v1/users/me/ssh-keys', user.session, { publicKey: 'hello' })).statusCode).to.equal(400);
    });

    it('answers 404 for another user\'s key and leaves it in place', async () => {
        const [owner, other] = [await register(instance.server), await register(instance.server)];
        const key = await call('POST', '/v1/users/me/ssh-keys', owner.session, { publicKey: sshPublicKey() });
        const res = await call('DELETE', `/v1/users/me/ssh-keys/${key.result.id}`, other.session);
        expect(res.statusCode).to.equal(404);
        expect((await call('GET', '/v1/users/me/ssh-keys', owner.session)).result).to.have.length(1);
    });

    it('parses ECDSA keys and refuses truncated blobs', () => {
        const { publicKey } = Crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
        const jwk = publicKey.export({ format: 'jwk' });
        const point = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
        const blob = Buffer.concat([field(Buffer.from('ecdsa-sha2-nistp256')), field(Buffer.from('nistp256')), field(point)]);
        expect(parseSshPublicKey(`ecdsa-sha2-nistp256 ${blob.toString('base64')}`)).to.include({ type: 'ecdsa-sha2-nistp256' });
        expect(parseSshPublicKey(`ecdsa-sha2-nistp256 ${blob.subarray(0, 40).toString('base64')}`)).to.equal({ error: 'is not a valid ecdsa-sha2-nistp256 key' });
    });
});
