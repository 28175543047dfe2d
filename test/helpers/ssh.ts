import * as Crypto from 'node:crypto';

/** A fresh ssh-ed25519 public key line, as `ssh-keygen` would write it. */
export function sshPublicKey(comment = 'test@host'): string {
    const { publicKey } = Crypto.generateKeyPairSync('ed25519');
    const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    const field = (buffer: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, buffer.length]), buffer]);
    const blob = Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]);
    return `ssh-ed25519 ${blob.toString('base64')} ${comment}`;
}
