import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Path from 'node:path';
import * as Util from 'node:util';

import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';

import { loadDocs } from '../lib/docs/pages';
import { SCOPES } from '../lib/scopes';
import { DOCS_DIR } from '../manifest/docs';
import { register, type TestUser } from './helpers/api';
import { connectGitHub } from './helpers/apps';
import { fakeDns, type FakeDns } from './helpers/fake-dns';
import { fakeGitHub, type FakeGitHub } from './helpers/fake-github';
import { fakeSlack, type FakeSlack } from './helpers/fake-slack';
import { mcpInstance, type McpInstance } from './helpers/mcp';

// Every curl example of docs/ runs, with the real curl, against a live API and MCP server on 127.0.0.1 with a fresh
// database, and answers the status its page states. A page states them in a comment the site and the MCP docs tools
// leave out, right before each block: `<!-- expect: 201 200 -->`, one status per curl command of the block, in order.
// Pages run in the docs' order and the examples of a page in its order, as a reader would run them: what one creates
// fills the placeholders of the next (`dep_...` is the last deployment id an answer held; of a list, which is newest
// first, its first item counts). `$API`, `$KEY` (and `svk_...`) and `$SESSION` are an account of the test's: the key
// holds the scopes the page's `export ... KEY=svk_... # a key with ...` line names, else every scope. The addresses
// the examples name (`ada@example.com`...) are accounts, unless an example registers them itself, each signed in with
// its session in `$<NAME>_SESSION` (`$ADA_SESSION`); GitHub is a fake on 127.0.0.1 holding the repository and pull
// request the examples name, and Slack's webhooks (`https://hooks.slack.com`) a fake too.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const execFile = Util.promisify(ChildProcess.execFile);
const ID = /^(?:prj|app|dep|crn|run|prc|key|usr|svoc|inv|cln|vm|ses)_[0-9A-Za-z]{16}$/;
const PLACEHOLDER = /\b(svk|prj|app|dep|crn|run|prc|key|usr|svoc|inv|cln|vm|ses)_\.\.\./g;
// Blocks a person runs with a browser in the loop (the OAuth consent): marked `<!-- expect: interactive -->` and not
// run here; test/browser/oauth.ts runs that flow end to end (docs/oauth.md: authorize, exchange, use, refresh,
// revoke, disconnect). Few, and counted.
const MAX_INTERACTIVE = 6;

interface Example {
    page: string;
    command: string;                                            // the curl command, comments and continuations as written
    status: number;
}

/** The commands of a shell block, split where bash would end them, each without its comments. */
function shellCommands(block: string): string[] {
    const commands: string[] = [];
    let current = '';
    let quote: '\'' | '"' | null = null;
    for (let i = 0; i < block.length; ++i) {
        const char = block[i];
        if (quote) {
            quote = char === quote ? null : quote;
            current += char;
        }
        else if (char === '\'' || char === '"') {
            quote = char;
            current += char;
        }
        else if (char === '\\' && block[i + 1] === '\n') {
            current += ' ';
            ++i;
        }
        else if (char === '#' && (!current || /\s$/.test(current))) {
            while (i + 1 < block.length && block[i + 1] !== '\n') {
                ++i;
            }
        }
        else if (char === '\n') {
            commands.push(current.trim());
            current = '';
        }
        else {
            current += char;
        }
    }

    commands.push(current.trim());
    return commands.filter(Boolean);
}

interface Page {
    path: string;
    examples: Example[];
    keyScopes: string[] | null;                                 // what `export ... KEY=svk_... # a key with ...` names
    interactive: number;                                        // blocks marked interactive, not run
}

function readPages(): Page[] {
    return loadDocs(DOCS_DIR).map(({ path }) => {
        const markdown = Fs.readFileSync(Path.join(DOCS_DIR, `${path}.md`), 'utf8');
        const examples: Example[] = [];
        let interactive = 0;
        for (const match of markdown.matchAll(/(?:^<!-- expect: ([\w ]+) -->\n)?^```(?:sh|bash)\n([\s\S]*?)^```$/gm)) {
            const curls = shellCommands(match[2]).filter((command) => command.startsWith('curl '));
            if (!curls.length) {
                continue;
            }

            if (match[1]?.trim() === 'interactive') {
                ++interactive;
                continue;
            }

            const statuses = (match[1] ?? '').trim().split(/\s+/).filter(Boolean).map(Number);
            if (statuses.length !== curls.length) {
                throw new Error(`docs/${path}.md: a block of ${curls.length} curl example(s) needs <!-- expect: <status> ... --> with ${curls.length} status(es) right before it (found "${match[1] ?? ''}")`);
            }

            curls.forEach((command, i) => examples.push({ page: path, command, status: statuses[i] }));
        }

        const scopes = /KEY=svk_\.\.\.\s+#\s*a key with (.+)$/m.exec(markdown)?.[1]?.split(/,\s*/);
        return { path, examples, keyScopes: scopes ?? null, interactive };
    });
}

const pages = readPages();

describe('the curl examples of docs/', () => {

    let github: FakeGitHub;
    let dns: FakeDns;
    let slack: FakeSlack;
    let instance: McpInstance;
    let user: TestUser;
    let api: string;
    const keys = new Map<string, string>();                     // page -> the $KEY it runs with
    const sessions: Record<string, string> = {};                // `ADA_SESSION` -> the session of ada@example.com
    const last = new Map<string, string>();                     // id prefix -> the last id an answer held

    before(async () => {
        github = await fakeGitHub({ login: 'acme' });
        github.addRepo('acme/shop', { files: { 'package.json': '{}' } });
        github.addCommit('acme/shop', 'main', 'Add checkout');
        github.addCommit('acme/shop', 'feature/cart', 'Cart drawer');
        github.addPull('acme/shop', { title: 'Cart drawer', head: 'feature/cart', number: 42 });
        dns = await fakeDns();
        slack = await fakeSlack();
        instance = await mcpInstance({
            github: { apiUrl: github.url, webUrl: github.url, clientId: github.oauth.clientId, clientSecret: github.oauth.clientSecret },
            outbound: { allowlist: ['127.0.0.1'] }, dnsServers: [dns.address]
        });
        instance.api.server.plugins['hostless-jobs'].queue.start();
        api = instance.api.server.info.uri;

        const server = instance.api.server;
        user = await register(server, 'docs');
        await connectGitHub(server, user.projectId, github.token, 'acme');
        last.set('prj', user.projectId);
        for (const page of pages) {
            const res = await server.inject({ method: 'POST', url: '/v1/users/me/api-keys', headers: { authorization: user.session }, payload: { name: page.path, scopes: page.keyScopes ?? SCOPES } });
            expect(res.statusCode, `the key docs/${page.path}.md asks for: ${res.payload}`).to.equal(201);
            keys.set(page.path, (res.result as { token: string }).token);
        }

        // The people the examples name are accounts, unless an example makes the account itself.
        const commands = pages.flatMap((page) => page.examples.map((example) => example.command));
        const registered = commands.filter((command) => command.includes('/auth/register')).join(' ');
        const named = new Set(commands.join(' ').match(/[\w.+-]+@example\.com/g));
        for (const email of [...named].filter((address) => !registered.includes(address))) {
            const res = await server.inject({ method: 'POST', url: '/v1/auth/register', payload: { email, password: 'a long passphrase' } });
            expect(res.statusCode, email).to.equal(201);
            sessions[`${email.split('@')[0].toUpperCase().replace(/[^A-Z0-9]/g, '_')}_SESSION`] = `Bearer ${(res.result as { accessToken: string }).accessToken}`;
        }
    });

    after(async () => {
        await instance?.stop();
        await github?.stop();
        await dns?.stop();
        await slack?.stop();
    });

    /** Background work the last example started (a deployment, a cron run) has run, as it would have for a reader. */
    const settled = async () => {
        const knex = instance.api.server.app.knex;
        for (let tries = 0; tries < 500; ++tries) {
            const now = new Date().toISOString();
            const [busy] = await knex('jobs').where('status', 'running').orWhere((query) => void query.where('status', 'queued').andWhere('run_at', '<=', now)).count({ n: '*' });
            if (!Number(busy.n)) {
                return;
            }

            await new Promise((resolve) => setTimeout(resolve, 20));
        }

        throw new Error('background jobs did not settle');
    };

    const remember = (value: unknown): void => {
        if (typeof value === 'string') {
            if (ID.test(value)) {
                last.set(value.slice(0, value.indexOf('_')), value);
            }
        }
        else if (value && typeof value === 'object') {
            Object.values(value).forEach(remember);
        }
    };

    it('finds examples on the pages that have them', () => {
        const counted = Object.fromEntries(pages.filter((page) => page.examples.length).map((page) => [page.path, page.examples.length]));
        expect(Object.keys(counted)).to.include(['getting-started', 'authentication', 'projects', 'apps', 'mcp']);
        expect(counted.apps).to.be.at.least(35);
        expect(pages.reduce((sum, page) => sum + page.interactive, 0)).to.be.at.most(MAX_INTERACTIVE);
        expect(shellCommands('curl -s a \\\n  -d \'{"a": "# not a comment"}\'  # a comment\ncurl b # c')).to.equal(['curl -s a    -d \'{"a": "# not a comment"}\'', 'curl b']);
    });

    for (const page of pages) {
        for (const example of page.examples) {
            it(`docs/${page.path}.md: ${example.command.slice(0, 110)} answers ${example.status}`, async () => {
                const command = example.command
                    .replaceAll('http://localhost:3000', api)
                    .replaceAll('http://localhost:3001', instance.url)
                    .replaceAll('https://hooks.slack.com', slack.url)
                    .replace(PLACEHOLDER, (placeholder, prefix: string) => prefix === 'svk' ? keys.get(page.path)! : last.get(prefix) ?? placeholder);
                const env = { PATH: process.env.PATH, API: `${api}/v1`, KEY: keys.get(page.path), SESSION: user.session, ...sessions };
                // --norc: bash reads ~/.bashrc when its stdin is a socket (as execFile's is) and SHLVL is unset, as if run by
                // sshd; a reader's rc file has no part in an example (on the CI machine it cost 400 ms an example).
                const { stdout } = await execFile('bash', ['--norc', '-c', `${command} -w '\\n%{http_code}'`], { env, timeout: 30_000, maxBuffer: 16 * 1024 * 1024 });
                const status = Number(stdout.slice(stdout.lastIndexOf('\n') + 1));
                const body = stdout.slice(0, stdout.lastIndexOf('\n'));
                expect(status, `${command}\n${body.slice(0, 500)}`).to.equal(example.status);
                const answer = safeJson(body);
                remember(Array.isArray(answer) ? answer[0] : answer);

                await settled();
            });
        }
    }
});

function safeJson(text: string): unknown {
    try {
        return JSON.parse(text);
    }
    catch {
        return null;
    }
}
