import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { CLAUDE_REDIRECT_URIS, DEFAULT_ASSISTANT_REDIRECT_PREFIXES, loadAppToken, loadConfig, loadMcpConfig } from '../../manifest/config';

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

    it('runs user code on a laptop by default, and makes any other server name its runtime driver', () => {
        const laptop = loadConfig({ DATA_DIR: tmp() }).runtime;
        expect(laptop).to.include({ driver: 'process', allowFileGit: true, sameUser: true });
        expect(laptop.dir!.endsWith('-runtime')).to.be.true();
        const env = { DATA_DIR: tmp(), PUBLIC_URL: 'https://hostless.example.com' };
        expect(() => loadConfig(env)).to.throw(/^RUNTIME_DRIVER is not set: outside laptop mode \(HOST and PUBLIC_URL on loopback, NODE_ENV not production\) name it: process to run apps/);
        expect(loadConfig({ ...env, RUNTIME_DRIVER: 'process' }).runtime).to.include({ driver: 'process', allowFileGit: false, sameUser: false, uidRange: [20000, 29999] });
        expect(loadConfig({ ...env, RUNTIME_DRIVER: 'process', RUNTIME_ALLOW_FILE_GIT: 'true', RUNTIME_UID_RANGE: '5000-5999' }).runtime).to.include({ allowFileGit: true, uidRange: [5000, 5999] });
        expect(() => loadConfig({ ...env, RUNTIME_DRIVER: 'docker' })).to.throw(/^RUNTIME_DRIVER is not valid: set it to process \(run apps, workers and cron jobs on this node\) or records/);
        expect(() => loadConfig({ ...env, RUNTIME_DRIVER: 'process', RUNTIME_UID_RANGE: '900-100' })).to.throw(/^RUNTIME_UID_RANGE is not valid/);
    });

    it('generates secrets once, keeps them in the data folder readable by the owner only, and reuses them', () => {
        const dir = tmp();
        const first = loadConfig({ DATA_DIR: dir });
        const second = loadConfig({ DATA_DIR: dir });
        expect(first.sessionSecret).to.have.length(64);
        expect(second.sessionSecret).to.equal(first.sessionSecret);
        expect(second.encryptionKey).to.equal(first.encryptionKey);
        expect(Fs.statSync(Path.join(dir, 'secrets.json')).mode & 0o777).to.equal(0o600);

        const fresh = Path.join(tmp(), 'data');
        loadConfig({ DATA_DIR: fresh });
        expect(Fs.statSync(fresh).mode & 0o777, 'a data folder it creates').to.equal(0o700);
        expect(Fs.statSync(Path.join(fresh, 'secrets.json')).mode & 0o777).to.equal(0o600);
    });

    it('stops a production boot without a secret, naming the variable', () => {
        const env = { NODE_ENV: 'production', DATA_DIR: tmp(), PUBLIC_URL: 'https://hostless.example.com', SITES_DOMAIN: 'example-sites.net', RUNTIME_DRIVER: 'records' };
        expect(() => loadConfig(env)).to.throw(/^SESSION_SECRET is not set: in production \(NODE_ENV=production\) every secret must be given/);
        expect(() => loadConfig({ ...env, SESSION_SECRET: 'x'.repeat(40) })).to.throw(/^ENCRYPTION_KEY is not set/);
        const config = loadConfig({ ...env, SESSION_SECRET: 's'.repeat(40), ENCRYPTION_KEY: 'e'.repeat(40) });
        expect(config.production).to.be.true();
        expect(Fs.existsSync(Path.join(env.DATA_DIR, 'secrets.json')), 'nothing generated in production').to.be.false();
    });

    it('stops a production boot whose SITES_DOMAIN is PUBLIC_URL\'s host or a parent of it', () => {
        const env = { NODE_ENV: 'production', DATA_DIR: tmp(), SESSION_SECRET: 's'.repeat(40), ENCRYPTION_KEY: 'e'.repeat(40), RUNTIME_DRIVER: 'records' };
        expect(() => loadConfig(env)).to.throw(/^SITES_DOMAIN \(localhost\) is PUBLIC_URL's host: tenants' sites would share the dashboard's origin\. In production set SITES_DOMAIN/);
        expect(() => loadConfig({ ...env, PUBLIC_URL: 'https://app.example.com', SITES_DOMAIN: 'example.com' })).to.throw(/^SITES_DOMAIN \(example\.com\) is a parent of PUBLIC_URL's host \(app\.example\.com\)/);
        expect(() => loadConfig({ ...env, PUBLIC_URL: 'https://example.com', SITES_DOMAIN: 'EXAMPLE.com' })).to.throw(/is PUBLIC_URL's host/);
        expect(loadConfig({ ...env, PUBLIC_URL: 'https://app.example.com', SITES_DOMAIN: 'sites.example.com' }).sites.domain).to.equal('sites.example.com');
        expect(loadConfig({ DATA_DIR: tmp() }).sites, 'a laptop serves sites on localhost').to.equal({ domain: 'localhost', flushMs: 5000 });
        expect(() => loadConfig({ DATA_DIR: tmp(), SITES_DOMAIN: 'not a domain' })).to.throw(/^SITES_DOMAIN is not valid: set it to a domain/);
    });

    it('stops the boot on a malformed setting with a sentence saying what to set', () => {
        expect(() => loadConfig({ PORT: 'eighty' })).to.throw('PORT is not valid: set it to a port number such as 3000, or leave it unset for the default.');
        expect(() => loadConfig({ SESSION_SECRET: 'short' })).to.throw(/^SESSION_SECRET is not valid: set it to at least 32 random characters/);
        expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).to.throw(/^DATABASE_URL is not valid/);
    });

    it('selects PostgreSQL from DATABASE_URL and derives the URLs from the public ones', () => {
        const config = loadConfig({ DATA_DIR: tmp(), DATABASE_URL: 'postgres://u:p@db:5432/hostless', PUBLIC_URL: 'https://api.example.com/', MCP_PORT: '4001', RUNTIME_DRIVER: 'records' });
        expect(config.database).to.equal({ client: 'postgres', connectionString: 'postgres://u:p@db:5432/hostless' });
        expect(config.publicUrl).to.equal('https://api.example.com');
        expect(config.apiBaseUrl).to.equal('https://api.example.com');
        expect(config.mcpPublicUrl).to.equal('http://localhost:4001');
    });

    it('reads the Git hosts: public ones by default, Enterprise and self-managed ones from their URLs', () => {
        const defaults = loadConfig({ DATA_DIR: tmp() });
        expect(defaults.github).to.equal({ webUrl: 'https://github.com', apiUrl: 'https://api.github.com', clientId: null, clientSecret: null });
        expect(defaults.gitlab).to.equal({ url: 'https://gitlab.com', clientId: null, clientSecret: null });
        expect(defaults.bitbucket).to.equal({ edition: 'cloud', url: 'https://bitbucket.org', apiUrl: 'https://api.bitbucket.org/2.0', clientId: null, clientSecret: null });
        expect(defaults.slack).to.equal({ webhookHosts: ['hooks.slack.com'], allowHttpLoopback: false });

        const own = loadConfig({
            DATA_DIR: tmp(), GITHUB_URL: 'https://github.example.com/', GITHUB_CLIENT_ID: 'Iv1.abc', GITHUB_CLIENT_SECRET: 'a-secret-of-forty',
            GITLAB_URL: 'https://gitlab.example.com', BITBUCKET_EDITION: 'datacenter', BITBUCKET_URL: 'https://bitbucket.example.com',
            SLACK_WEBHOOK_HOSTS: 'hooks.slack.com, Hooks.Slack-Gov.com', NODE_ENV: 'development'
        });
        expect(own.github).to.equal({ webUrl: 'https://github.example.com', apiUrl: 'https://github.example.com/api/v3', clientId: 'Iv1.abc', clientSecret: 'a-secret-of-forty' });
        expect(own.gitlab.url).to.equal('https://gitlab.example.com');
        expect(own.bitbucket).to.include({ edition: 'datacenter', url: 'https://bitbucket.example.com', apiUrl: 'https://bitbucket.example.com/rest/api/1.0' });
        expect(own.slack).to.equal({ webhookHosts: ['hooks.slack.com', 'hooks.slack-gov.com'], allowHttpLoopback: false });
    });

    it('stops the boot when a Git host has a client id without its secret, or the reverse', () => {
        expect(() => loadConfig({ DATA_DIR: tmp(), GITLAB_CLIENT_ID: 'abc' })).to.throw('GITLAB_CLIENT_SECRET is not set: set it to the secret of your GitLab OAuth application (set GITLAB_CLIENT_ID with it), or unset both to leave the host unconnected.');
        expect(() => loadConfig({ DATA_DIR: tmp(), BITBUCKET_CLIENT_SECRET: 'a-long-secret' })).to.throw(/^BITBUCKET_CLIENT_ID is not set/);
        expect(() => loadConfig({ DATA_DIR: tmp(), BITBUCKET_EDITION: 'server' })).to.throw(/^BITBUCKET_EDITION is not valid: set it to cloud \(bitbucket.org\) or datacenter/);
    });

    it('reads the trusted proxies, the longest key lifetime and where the leak reporter publishes its keys', () => {
        const defaults = loadConfig({ DATA_DIR: tmp() });
        expect(defaults.trustedProxies).to.equal([]);
        expect(defaults.apiKeys).to.equal({ maxLifetimeDays: null });
        expect(defaults.secretScanning).to.equal({ keysUrl: 'https://api.github.com/meta/public_keys/secret_scanning' });

        const env = { DATA_DIR: tmp(), TRUSTED_PROXIES: ' 10.0.0.0/8, loopback ,2001:db8::1', API_KEY_MAX_LIFETIME_DAYS: '90', SECRET_SCANNING_KEYS_URL: 'https://keys.example.com/secret_scanning' };
        const config = loadConfig(env);
        expect(config.trustedProxies).to.equal(['10.0.0.0/8', 'loopback', '2001:db8::1']);
        expect(loadMcpConfig(env).trustedProxies, 'the MCP server reads them too').to.equal(config.trustedProxies);
        expect(config.apiKeys).to.equal({ maxLifetimeDays: 90 });
        expect(config.secretScanning.keysUrl).to.equal('https://keys.example.com/secret_scanning');

        expect(() => loadConfig({ ...env, TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' })).to.throw(/^TRUSTED_PROXIES is not valid: set it to a comma list of the addresses or CIDR ranges of your reverse proxies/);
        expect(() => loadConfig({ ...env, API_KEY_MAX_LIFETIME_DAYS: '0' })).to.throw(/^API_KEY_MAX_LIFETIME_DAYS is not valid/);
        expect(() => loadConfig({ ...env, SECRET_SCANNING_KEYS_URL: 'ftp://x' })).to.throw(/^SECRET_SCANNING_KEYS_URL is not valid/);
    });

    it('reads how far the heap may grow past what is live: 50% by default, 0 for V8\'s own choice, on both processes', () => {
        expect(loadConfig({ DATA_DIR: tmp() }).heapGrowingPercent).to.equal(50);
        expect(loadConfig({ DATA_DIR: tmp(), HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).to.equal(0);
        expect(loadMcpConfig({ HEAP_GROWING_PERCENT: '120' }).heapGrowingPercent).to.equal(120);
        for (const value of ['5', '301', '12.5', 'half']) {
            expect(() => loadConfig({ DATA_DIR: tmp(), HEAP_GROWING_PERCENT: value }), value).to.throw('HEAP_GROWING_PERCENT is not valid: set it to a whole percentage from 10 to 300, or 0 for V8\'s own heap growth, or leave it unset for the default.');
        }
    });

    it('reads the SMTP server and sender of notifications, with a sender on the public host by default', () => {
        expect(loadConfig({ DATA_DIR: tmp(), PUBLIC_URL: 'https://api.example.com', RUNTIME_DRIVER: 'records' }).notifications)
            .to.equal({ smtpUrl: null, from: 'Hostless <no-reply@api.example.com>', retentionDays: 90 });
        const env = { DATA_DIR: tmp(), SMTP_URL: 'smtps://u:p@smtp.example.com:465', SMTP_FROM: 'Ops <ops@example.com>', NOTIFICATION_RETENTION_DAYS: '30' };
        expect(loadConfig(env).notifications).to.equal({ smtpUrl: 'smtps://u:p@smtp.example.com:465', from: 'Ops <ops@example.com>', retentionDays: 30 });
        expect(loadConfig({ ...env, SMTP_FROM: 'ops@example.com' }).notifications.from).to.equal('ops@example.com');
        expect(() => loadConfig({ ...env, SMTP_URL: 'https://smtp.example.com' })).to.throw(/^SMTP_URL is not valid: set it to an SMTP server URL/);
        expect(() => loadConfig({ ...env, SMTP_FROM: 'Ops <not an address>' })).to.throw(/^SMTP_FROM is not valid: set it to an email address/);
    });

    it('reads the database provisioner and the VM catalogue, with records and the built-in catalogue by default', () => {
        expect(loadConfig({ DATA_DIR: tmp() }).databases).to.equal({ provisionerUrl: null, publicHost: null, publicPort: null, binDir: null, importTimeoutMs: 3_600_000 });
        const env = { DATA_DIR: tmp(), DATABASE_PROVISIONER_URL: 'postgres://admin:pw@db.internal:5432/postgres', DATABASE_PROVISIONER_PUBLIC_HOST: 'db.example.com:6432', DATABASE_PROVISIONER_BIN_DIR: '/usr/lib/postgresql/16/bin', DATABASE_IMPORT_TIMEOUT_MS: '60000' };
        expect(loadConfig(env).databases).to.equal({ provisionerUrl: env.DATABASE_PROVISIONER_URL, publicHost: 'db.example.com', publicPort: 6432, binDir: '/usr/lib/postgresql/16/bin', importTimeoutMs: 60_000 });
        expect(loadConfig({ ...env, DATABASE_PROVISIONER_PUBLIC_HOST: '[2001:db8::5]' }).databases).to.include({ publicHost: '2001:db8::5', publicPort: null });
        expect(() => loadConfig({ ...env, DATABASE_PROVISIONER_URL: 'mysql://admin@db/x' })).to.throw(/^DATABASE_PROVISIONER_URL is not valid: set it to postgres:\/\/admin:password@db.internal:5432\/postgres/);
        expect(() => loadConfig({ ...env, DATABASE_PROVISIONER_PUBLIC_HOST: 'db.example.com/x' })).to.throw(/^DATABASE_PROVISIONER_PUBLIC_HOST is not valid/);

        expect(loadConfig({ DATA_DIR: tmp() }).vms.catalogue.version).to.equal('2026-11-01');
        const dir = tmp();
        const catalogue = { version: '2027-02', currency: 'EUR', sizes: [{ slug: 'cx22', vcpus: 2, memoryMiB: 4096, diskGiB: 40, pricePerHour: 0.006, pricePerMonth: 4.5 }], images: [{ slug: 'debian-13', name: 'Debian 13' }], regions: ['fsn1'], extraDiskPerGiBMonth: 0.05, maxDiskGiB: 500 };
        Fs.writeFileSync(Path.join(dir, 'vms.json'), JSON.stringify(catalogue));
        expect(loadConfig({ DATA_DIR: dir, VM_CATALOGUE_FILE: Path.join(dir, 'vms.json') }).vms).to.equal({ driver: 'records', catalogue });
        Fs.writeFileSync(Path.join(dir, 'bad.json'), JSON.stringify({ ...catalogue, sizes: [] }));
        expect(() => loadConfig({ DATA_DIR: dir, VM_CATALOGUE_FILE: Path.join(dir, 'bad.json') })).to.throw('VM_CATALOGUE_FILE is not a valid VM catalogue: "sizes" must contain at least 1 items.');
        expect(() => loadConfig({ DATA_DIR: dir, VM_CATALOGUE_FILE: Path.join(dir, 'missing.json') })).to.throw(/^VM_CATALOGUE_FILE could not be read as JSON/);
    });

    describe('the OAuth server\'s clients', () => {

        it('default to the assistant client, metadata documents, and no legacy client', () => {
            const { oauth } = loadConfig({ DATA_DIR: tmp() });
            expect(oauth.assistant).to.equal({ id: 'chatgpt', name: 'ChatGPT', redirectPrefixes: DEFAULT_ASSISTANT_REDIRECT_PREFIXES });
            expect(oauth.legacy).to.be.null();
            expect(oauth.metadataDocuments).to.be.true();
        });

        it('read the assistant\'s prefixes (empty turns it off), the legacy secret, and the metadata documents flag', () => {
            const { oauth } = loadConfig({
                DATA_DIR: tmp(), OAUTH_ASSISTANT_CLIENT_ID: 'helper', OAUTH_ASSISTANT_REDIRECT_PREFIXES: 'https://assistant.example/cb/, http://127.0.0.1/cb',
                OAUTH_CLAUDE_CLIENT_SECRET: 's'.repeat(40), OAUTH_METADATA_DOCUMENTS: 'false'
            });
            expect(oauth.assistant).to.include({ id: 'helper', redirectPrefixes: ['https://assistant.example/cb/', 'http://127.0.0.1/cb'] });
            expect(oauth.legacy).to.equal({ id: 'claude', name: 'Claude', secret: 's'.repeat(40), redirectUris: CLAUDE_REDIRECT_URIS });
            expect(oauth.metadataDocuments).to.be.false();
            expect(loadConfig({ DATA_DIR: tmp(), OAUTH_ASSISTANT_REDIRECT_PREFIXES: '' }).oauth.assistant).to.be.null();
        });

        it('stop the boot on a prefix that is not https or loopback, a short legacy secret, or an odd client id', () => {
            expect(() => loadConfig({ DATA_DIR: tmp(), OAUTH_ASSISTANT_REDIRECT_PREFIXES: 'http://assistant.example/cb' })).to.throw(/^OAUTH_ASSISTANT_REDIRECT_PREFIXES is not valid: set it to a comma list of https URLs/);
            expect(() => loadConfig({ DATA_DIR: tmp(), OAUTH_CLAUDE_CLIENT_SECRET: 'short' })).to.throw(/^OAUTH_CLAUDE_CLIENT_SECRET is not valid/);
            expect(() => loadConfig({ DATA_DIR: tmp(), OAUTH_ASSISTANT_CLIENT_ID: 'https://x.example/doc' })).to.throw(/^OAUTH_ASSISTANT_CLIENT_ID is not valid/);
        });
    });

    describe('the MCP server\'s settings', () => {

        it('default to every tool, and to the origins of the MCP server and the API', () => {
            const config = loadConfig({ DATA_DIR: tmp(), PUBLIC_URL: 'https://api.example.com', MCP_PUBLIC_URL: 'https://mcp.example.com/', RUNTIME_DRIVER: 'records' });
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
            expect(() => loadMcpConfig({ MCP_ALLOWED_TOOLS: 'projects,teleport' })).to.throw(/^MCP_ALLOWED_TOOLS is not valid: set it to a comma list of tool names \(such as projects_list\) and groups \(projects, apps, sites, workers, cron_jobs, databases, deploy, developer, context\)/);
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
