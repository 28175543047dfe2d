import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { loadAppToken, loadConfig, loadMcpConfig } from '../../manifest/config';

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

    describe('the MCP server\'s settings', () => {

        it('default to every tool, and to the origins of the MCP server and the API', () => {
            const config = loadConfig({ DATA_DIR: tmp(), PUBLIC_URL: 'https://api.example.com', MCP_PUBLIC_URL: 'https://mcp.example.com/' });
            expect(config).to.include({ mcpReadOnly: false, mcpAllowedTools: null, mcpPublicUrl: 'https://mcp.example.com' });
            expect(config.mcpAllowedOrigins).to.equal(['https://mcp.example.com', 'https://api.example.com']);
        });

        it('read MCP_READ_ONLY, MCP_ALLOWED_TOOLS and MCP_ALLOWED_ORIGINS as a flag and comma lists', () => {
            const config = loadMcpConfig({ MCP_READ_ONLY: 'true', MCP_ALLOWED_TOOLS: 'projects, apps_list ,readonly', MCP_ALLOWED_ORIGINS: 'https://app.example.com, http://localhost:6274' });
            expect(config.mcpReadOnly).to.be.true();
            expect(config.mcpAllowedTools).to.equal(['projects', 'apps_list', 'readonly']);
            expect(config.mcpAllowedOrigins).to.equal(['https://app.example.com', 'http://localhost:6274']);
            expect(loadMcpConfig({ MCP_ALLOWED_ORIGINS: '*' }).mcpAllowedOrigins).to.equal(['*']);
            expect(loadMcpConfig({ MCP_ALLOWED_TOOLS: ' ', MCP_ALLOWED_ORIGINS: '' })).to.include({ mcpAllowedTools: null, mcpAllowedOrigins: ['http://localhost:3001', 'http://localhost:3000'] });
        });

        it('stop the boot on an unknown tool, an origin with a path, or a flag that is not a boolean', () => {
            expect(() => loadMcpConfig({ MCP_ALLOWED_TOOLS: 'projects,teleport' })).to.throw(/^MCP_ALLOWED_TOOLS is not valid: set it to a comma list of tool names \(such as projects_list\) and groups \(projects, apps, sites, workers, cron_jobs, databases\)/);
            expect(() => loadMcpConfig({ MCP_ALLOWED_ORIGINS: 'https://app.example.com/page' })).to.throw(/^MCP_ALLOWED_ORIGINS is not valid/);
            expect(() => loadMcpConfig({ MCP_READ_ONLY: 'maybe' })).to.throw('MCP_READ_ONLY is not valid: set it to true or false, or leave it unset for the default.');
        });

        it('load without secrets or a data folder, even in production: the MCP server holds neither', () => {
            const dir = Path.join(tmp(), 'never-made');
            const config = loadMcpConfig({ NODE_ENV: 'production', DATA_DIR: dir, API_BASE_URL: 'http://api.internal:3000' });
            expect(config.apiBaseUrl).to.equal('http://api.internal:3000');
            expect(Object.keys(config)).to.not.include(['sessionSecret', 'encryptionKey', 'database', 'dataDir']);
            expect(Fs.existsSync(dir)).to.be.false();
        });

        it('take stdio mode\'s credential from APP_TOKEN, with or without Bearer, and refuse an empty one', () => {
            expect(loadAppToken({ APP_TOKEN: ' svk_abc_def ' })).to.equal('svk_abc_def');
            expect(loadAppToken({ APP_TOKEN: 'Bearer eyJ.a.b' })).to.equal('eyJ.a.b');
            expect(() => loadAppToken({})).to.throw(/^APP_TOKEN is not set: stdio mode acts with your credential/);
            expect(() => loadAppToken({ APP_TOKEN: ' ' })).to.throw(/^APP_TOKEN is not set/);
            expect(() => loadAppToken({ APP_TOKEN: 'two words' })).to.throw(/^APP_TOKEN is not valid/);
        });
    });
});
