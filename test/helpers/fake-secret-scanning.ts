import * as Crypto from 'node:crypto';

import type { ServerInjectOptions } from '@hapi/hapi';

import { fakeService, type FakeService } from './fake-service';

// GitHub's secret scanning, as a leak reporter: its public keys served on 127.0.0.1 the way
// https://api.github.com/meta/public_keys/secret_scanning serves them, and reports signed with the matching private
// key by the documented scheme (ECDSA P-256, SHA-256 over the raw body, base64 DER signature in
// Github-Public-Key-Signature, the key's identifier in Github-Public-Key-Identifier). A second key pair that is not
// published signs forged reports.
export const KEYS_PATH = '/meta/public_keys/secret_scanning';

interface Pair {
    identifier: string;
    privateKey: Crypto.KeyObject;
    pem: string;
}

function pair(): Pair {
    const { privateKey, publicKey } = Crypto.generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    return { identifier: Crypto.createHash('sha256').update(pem).digest('hex'), privateKey, pem };
}

export interface SignedReport {
    payload: string;
    headers: Record<string, string>;
}

export interface FakeSecretScanning {
    keysUrl: string;
    service: FakeService;
    identifier: string;
    /** The report body signed with the published key. */
    sign(body: string): SignedReport;
    /** Signed with a key of the same shape that is not published, under the published key's identifier. */
    forge(body: string): SignedReport;
    /** A request the API server accepts as a report: the JSON text of `tokens`, signed. */
    report(tokens: unknown, signer?: 'sign' | 'forge'): ServerInjectOptions;
    rotate(): void;                                             // publishes a new key (the old one stays listed)
    stop(): Promise<void>;
}

export async function fakeSecretScanning(): Promise<FakeSecretScanning> {
    let published = [pair()];
    const impostor = pair();
    const service = await fakeService([{
        method: 'GET', path: KEYS_PATH,
        handler: () => ({ public_keys: published.map((key, i) => ({ key_identifier: key.identifier, key: key.pem, is_current: i === published.length - 1 })) })
    }]);
    const signed = (key: Pair, identifier: string, body: string): SignedReport => ({
        payload: body,
        headers: {
            'content-type': 'application/json',
            'github-public-key-identifier': identifier,
            'github-public-key-signature': Crypto.sign('sha256', Buffer.from(body), key.privateKey).toString('base64')
        }
    });
    const current = (): Pair => published.at(-1)!;
    const fake: FakeSecretScanning = {
        keysUrl: `${service.url}${KEYS_PATH}`,
        service,
        get identifier() {
            return current().identifier;
        },
        sign: (body) => signed(current(), current().identifier, body),
        forge: (body) => signed(impostor, current().identifier, body),
        report: (tokens, signer = 'sign') => ({ method: 'POST', url: '/v1/secret-scanning/report', ...fake[signer](JSON.stringify(tokens)) }),
        rotate: () => {
            published = [...published, pair()];
        },
        stop: () => service.stop()
    };
    return fake;
}
