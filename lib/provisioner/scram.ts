import * as Crypto from 'node:crypto';

// A SCRAM-SHA-256 verifier (RFC 5802, RFC 7677), in the form PostgreSQL stores in pg_authid: computed here, as psql's
// \password does, so the plain password never travels to the server nor reaches its statement log.
export const SCRAM_ITERATIONS = 4096;

export function scramVerifier(password: string, salt: Buffer = Crypto.randomBytes(16), iterations = SCRAM_ITERATIONS): string {
    // SASLprep leaves printable ASCII as it is; the platform's generated passwords are base62.
    if (!/^[\x21-\x7e]+$/.test(password)) {
        throw new Error('A SCRAM verifier is made here for printable ASCII passwords only');
    }

    const salted = Crypto.pbkdf2Sync(password, salt, iterations, 32, 'sha256');
    const hmac = (key: Buffer, text: string) => Crypto.createHmac('sha256', key).update(text).digest();
    const storedKey = Crypto.createHash('sha256').update(hmac(salted, 'Client Key')).digest();
    const serverKey = hmac(salted, 'Server Key');
    return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}
