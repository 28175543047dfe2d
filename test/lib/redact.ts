import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { generateApiKey } from '../../lib/api-key-token';
import { redact } from '../../lib/redact';

// What the log and the security events cut out: credentials by their shape, and nothing else.
const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

describe('redact', () => {

    it('cuts an API key out with or without its marker, with the marker in any case, anywhere in a path', () => {
        const { token, prefix, secret } = generateApiKey();
        const unmarked = `${prefix}_${secret}`;
        for (const text of [
            `key ${token} used`, `GET /v1/apps/${token}`, `GET /v1/apps/SVK_${unmarked}/logs`, `GET /v1/apps/Svk_${unmarked}`,
            `GET /v1/apps/${unmarked}`, `GET /v1/apps/${unmarked}/logs`, `"path":"/x/${unmarked}?a=1"`, `token=${unmarked}`
        ]) {
            const redacted = redact(text);
            expect(redacted, text).to.not.include(secret);
            expect(redacted, text).to.include('[redacted]');
        }

        expect(redact(`GET /v1/apps/${unmarked}/logs`)).to.equal('GET /v1/apps/[redacted]/logs');
        expect(redact(`prefix svk_${prefix} is public`)).to.equal(`prefix svk_${prefix} is public`);
    });

    it('cuts out refresh tokens in any case and JWTs, as before', () => {
        expect(redact('refresh svr_AbCdEf0123456789 and SVR_AbCdEf0123456789')).to.equal('refresh [redacted] and [redacted]');
        expect(redact('Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln')).to.equal('Bearer [redacted]');
    });

    it('cuts the password out of a URL\'s user information, keeping the user and the host', () => {
        expect(redact('connecting to postgres://shop:s3cr%40t:x@db.example.com:5432/shop?sslmode=require')).to.equal('connecting to postgres://shop:[redacted]@db.example.com:5432/shop?sslmode=require');
        expect(redact('DATABASE_URL=postgresql://u:p@h/d and redis://:pw@cache:6379')).to.equal('DATABASE_URL=postgresql://u:[redacted]@h/d and redis://:[redacted]@cache:6379');
        expect(redact('https://example.com/a:b@c and postgres://user@host/db')).to.equal('https://example.com/a:b@c and postgres://user@host/db');
    });

    it('cuts out Git hosts\' tokens and the secret path of a Slack webhook', () => {
        expect(redact('token gho_16C7e42F292c6912E7710c838347Ae178B4a used')).to.equal('token [redacted] used');
        expect(redact('pat github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz')).to.equal('pat [redacted]');
        expect(redact('gitlab glpat-xxxxxxxxxxxxxxxxxxxx1234 here')).to.equal('gitlab [redacted] here');
        expect(redact('POST https://hooks.slack.com/services/T0001/B0001/XXXXXXXXXXXXXXXX failed')).to.equal('POST https://hooks.slack.com/services/[redacted] failed');
    });

    it('leaves ordinary words, identifiers, hashes and mistyped shapes alone', () => {
        const { prefix, secret } = generateApiKey();
        const ordinary = [
            'internationalization_and_localization_of_user_interfaces',
            'GET /v1/apps/shop-prod/deployments/dep_AbCdEfGh01234567/logs',
            `commit abcdef01_${'0123456789abcdef'.repeat(3)}`,
            `build_${'a'.repeat(45)}`,
            'Mississippi_Supercalifragilisticexpialidocious0123456789xy',
            `${prefix}_${secret.slice(0, -1)}${secret.endsWith('a') ? 'b' : 'a'}`,
            'eyjafjallajokull erupted in 2010'
        ];
        for (const text of ordinary) {
            expect(redact(text), text).to.equal(text);
        }
    });
});
