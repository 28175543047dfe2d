import * as Crypto from 'node:crypto';

// Parses an OpenSSH public key line (`<type> <base64 blob> [comment]`) and checks that the blob is what its type
// says: the wire format of RFC 4253 section 6.6, RFC 5656 and RFC 8709.
export interface SshPublicKey {
    type: string;
    blob: Buffer;
    fingerprint: string;                                        // SHA256:<base64 without padding>, as ssh-keygen -l prints
    normalized: string;                                         // `<type> <base64>` without the comment
}

const curves: Record<string, string> = {
    'ecdsa-sha2-nistp256': 'nistp256',
    'ecdsa-sha2-nistp384': 'nistp384',
    'ecdsa-sha2-nistp521': 'nistp521'
};

export function parseSshPublicKey(line: string): SshPublicKey | { error: string } {
    const [type, encoded] = line.trim().split(/\s+/);
    if (!type || !encoded || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
        return { error: 'must be an OpenSSH public key line: "<type> <base64> [comment]"' };
    }

    const blob = Buffer.from(encoded, 'base64');
    const reader = new WireReader(blob);
    const inner = reader.string()?.toString('latin1');
    if (inner !== type) {
        return { error: 'has a key blob that does not match its type' };
    }

    const error = checkBody(type, reader);
    if (error) {
        return { error };
    }

    const fingerprint = `SHA256:${Crypto.createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
    return { type, blob, fingerprint, normalized: `${type} ${blob.toString('base64')}` };
}

function checkBody(type: string, reader: WireReader): string | null {
    if (type === 'ssh-ed25519') {
        return reader.string()?.length === 32 && reader.done() ? null : 'is not a valid ssh-ed25519 key';
    }

    if (type === 'ssh-rsa') {
        const exponent = reader.string();
        const modulus = reader.string();
        if (!exponent || !modulus || !reader.done()) {
            return 'is not a valid ssh-rsa key';
        }

        const bits = (modulus.length - (modulus[0] === 0 ? 1 : 0)) * 8;
        return bits >= 2048 ? null : 'is an RSA key shorter than 2048 bits';
    }

    const curve = curves[type];
    if (curve) {
        const name = reader.string()?.toString('latin1');
        const point = reader.string();
        return name === curve && point && point[0] === 4 && reader.done() ? null : `is not a valid ${type} key`;
    }

    return 'has an unsupported key type (use ssh-ed25519, ecdsa-sha2-nistp256/384/521 or ssh-rsa)';
}

class WireReader {
    private offset = 0;

    constructor(private readonly buffer: Buffer) { }

    string(): Buffer | null {
        if (this.offset + 4 > this.buffer.length) {
            return null;
        }

        const length = this.buffer.readUInt32BE(this.offset);
        const start = this.offset + 4;
        if (start + length > this.buffer.length) {
            return null;
        }

        this.offset = start + length;
        return this.buffer.subarray(start, this.offset);
    }

    done(): boolean {
        return this.offset === this.buffer.length;
    }
}
