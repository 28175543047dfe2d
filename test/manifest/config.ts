import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { loadConfig } from '../../manifest/config';

const { describe, it } = exports.lab = Lab.script();
const { expect } = Code;

const tmp = () => Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-config-'));

describe('configuration', () => {

    it('works with nothing set: SQLite in ./data-like folder, laptop URLs', () => {
        const dir = tmp();
        const config = loadConfig({ DATA_DIR: dir });
        expect(config).to.include({ host: '127.0.0.1', port: 3000, mcpPort: 3001, publicUrl: 'http://localhost:3000', mcpPublicUrl: 'http://localhost:3001', apiBaseUrl: 'http://localhost:3000', production: false });
        expect(config.database).to.equal({ client: 'sqlite', filename: Path.join(dir, 'hostless.sqlite') });
    });

    it('generates secrets once, keeps them in the data folder readable by the owner only, and reuses them', () => {
        const dir = tmp();
        const first = loadConfig({ DATA_DIR: dir });
        const second = loadConfig({ DATA_DIR: dir });
        expect(first.sessionSecret).to.have.length(64);
        expect(second.sessionSecret).to.equal(first.sessionSecret);
        expect(second.encryptionKey).to.equal(first.encryptionKey);
        expect(Fs.statSync(Path.join(dir, 'secrets.json')).mode & 0o777).to.equal(0o600);
    });

    it('stops a production boot without a secret, naming the variable', () => {
        const env = { NODE_ENV: 'production', DATA_DIR: tmp() };
        expect(() => loadConfig(env)).to.throw(/^SESSION_SECRET is not set: in production \(NODE_ENV=production\) every secret must be given/);
        expect(() => loadConfig({ ...env, SESSION_SECRET: 'x'.repeat(40) })).to.throw(/^ENCRYPTION_KEY is not set/);
        const config = loadConfig({ ...env, SESSION_SECRET: 's'.repeat(40), ENCRYPTION_KEY: 'e'.repeat(40) });
        expect(config.production).to.be.true();
        expect(Fs.existsSync(Path.join(env.DATA_DIR, 'secrets.json')), 'nothing generated in production').to.be.false();
    });

    it('stops the boot on a malformed setting with a sentence saying what to set', () => {
        expect(() => loadConfig({ PORT: 'eighty' })).to.throw('PORT is not valid: set it to a port number such as 3000, or leave it unset for the default.');
        expect(() => loadConfig({ SESSION_SECRET: 'short' })).to.throw(/^SESSION_SECRET is not valid: set it to at least 32 random characters/);
        expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).to.throw(/^DATABASE_URL is not valid/);
    });

    it('selects PostgreSQL from DATABASE_URL and derives the URLs from the public ones', () => {
        const config = loadConfig({ DATA_DIR: tmp(), DATABASE_URL: 'postgres://u:p@db:5432/hostless', PUBLIC_URL: 'https://api.example.com/', MCP_PORT: '4001' });
        expect(config.database).to.equal({ client: 'postgres', connectionString: 'postgres://u:p@db:5432/hostless' });
        expect(config.publicUrl).to.equal('https://api.example.com');
        expect(config.apiBaseUrl).to.equal('https://api.example.com');
        expect(config.mcpPublicUrl).to.equal('http://localhost:4001');
    });
});
