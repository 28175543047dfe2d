// `npm run bench`: throughput ratios measured in one run, against a baseline run beside them. No timing is asserted
// anywhere: the numbers are printed for a person to read.
import * as ChildProcess from 'node:child_process';
import * as Os from 'node:os';
import * as Path from 'node:path';

import autocannon from 'autocannon';

import { SEARCH_WORD } from './lists-server';

interface Target {
    label: string;
    url: string;
    headers?: Record<string, string>;
    method?: 'GET' | 'POST';
    body?: string;
}

// The list measured through MCP and directly, with the same key: apps_list against GET /v1/apps (the issue's target).
const MCP_LIST = { tool: 'apps_list', rest: '/v1/apps' };

const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

async function load(target: Target, duration: number): Promise<number> {
    const result = await autocannon({ url: target.url, connections: 10, duration, method: target.method ?? 'GET', headers: target.headers ?? {}, ...(target.body ? { body: target.body } : {}) });
    if (result.non2xx || result.errors) {
        throw new Error(`${target.label}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
    }

    return result.requests.average;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Alternates the targets round by round, so drift on the machine hits both alike; reports medians. */
async function compare(baseline: Target, subject: Target): Promise<{ baseline: number; subject: number; ratio: number }> {
    await load(baseline, 2);
    await load(subject, 2);
    const samples = { baseline: [] as number[], subject: [] as number[] };
    for (let round = 0; round < ROUNDS; ++round) {
        samples.baseline.push(await load(baseline, DURATION_S));
        samples.subject.push(await load(subject, DURATION_S));
    }

    const result = { baseline: median(samples.baseline), subject: median(samples.subject) };
    return { ...result, ratio: result.subject / result.baseline };
}

// On a machine with two or more CPUs and taskset, the server runs on CPU 0 and the load generator on CPU 1, so they
// never compete for one core (run-to-run noise here is otherwise ±20%); elsewhere both float.
const PINNED = process.env.BENCH_PINNED === '1';

function startServer<T extends object = { port: number; mcpPort: number; token: string }>(script: string, args: string[] = []): Promise<T & { child: ChildProcess.ChildProcess }> {
    return new Promise((resolve, reject) => {
        const file = Path.join(__dirname, script);
        const child = PINNED
            ? ChildProcess.spawn('taskset', ['-c', '0', process.execPath, file, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
            : ChildProcess.fork(file, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        child.once('message', (message: T) => resolve({ child, ...message }));
        child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    });
}

const rate = (label: string, value: number) => `  ${label.padEnd(44)} ${value.toFixed(0).padStart(8)} req/s`;
const ratio = (value: number, target: number) => `  ${'ratio'.padEnd(44)} ${value.toFixed(3).padStart(8)}   (target >= ${target})`;

interface ListsServer {
    port: number;
    tokens: { small: string; large: string; logs: string };
    logApps: { small: string; large: string };
    counts: { smallApps: number; largeApps: number; smallLines: number; largeLines: number };
}

/** Lists and logs whose cost is the page: the same request against 100 and 100,000 reachable apps, and a text search
 * over 10,000 and 1,000,000 log lines of one app, on one database. */
async function listsAndLogs(database: 'sqlite' | 'postgres'): Promise<void> {
    const started = Date.now();
    const server = await startServer<ListsServer>('lists-server.js', [database]);
    try {
        const base = `http://127.0.0.1:${server.port}`;
        const { counts } = server;
        console.log(`\nLists and logs on ${database === 'sqlite' ? 'SQLite' : 'PostgreSQL'} (filled in ${((Date.now() - started) / 1000).toFixed(0)} s)`);
        const page = (who: 'small' | 'large'): Target => ({ label: `${who} page`, url: `${base}/v1/apps?limit=50`, headers: { authorization: server.tokens[who] } });
        const pages = await compare(page('small'), page('large'));
        console.log(`GET /v1/apps?limit=50 with an API key, five member projects`);
        console.log(rate(`${counts.smallApps} reachable apps`, pages.baseline));
        console.log(rate(`${counts.largeApps.toLocaleString('en')} reachable apps`, pages.subject));
        console.log(ratio(pages.ratio, 0.8));

        const trivial = await compare({ label: 'trivial', url: `${base}/bench/trivial` }, page('small'));
        console.log(`GET /v1/apps?limit=50 (${counts.smallApps} apps) against a trivial hapi route in the same server`);
        console.log(rate('trivial route, no auth', trivial.baseline));
        console.log(rate('page of 50 apps', trivial.subject));
        console.log(ratio(trivial.ratio, 0.25));

        const search = (who: 'small' | 'large'): Target => ({ label: `${who} search`, url: `${base}/v1/apps/${server.logApps[who]}/logs?q=${SEARCH_WORD}&limit=100`, headers: { authorization: server.tokens.logs } });
        const searches = await compare(search('small'), search('large'));
        console.log(`GET /v1/apps/{appName}/logs?q=${SEARCH_WORD}&limit=100 (1% of the lines match)`);
        console.log(rate(`${counts.smallLines.toLocaleString('en')} lines`, searches.baseline));
        console.log(rate(`${counts.largeLines.toLocaleString('en')} lines`, searches.subject));
        console.log(ratio(searches.ratio, 0.5));
    }
    finally {
        server.child.send('stop');
        await new Promise((resolve) => server.child.once('exit', resolve));
    }
}

/** A tools/call of the list tool, checked once to succeed, so the load measures answers and not refusals. */
async function mcpTarget(url: string, token: string): Promise<Target> {
    const target: Target = {
        label: MCP_LIST.tool,
        url,
        method: 'POST',
        headers: { authorization: token, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: MCP_LIST.tool, arguments: {} } })
    };
    const answer = await fetch(url, { method: 'POST', headers: target.headers!, body: target.body! });
    const body = await answer.json() as { result?: { isError?: boolean; content?: Array<{ text: string }> } };
    if (answer.status !== 200 || !body.result || body.result.isError) {
        throw new Error(`${MCP_LIST.tool} through MCP failed (${answer.status}): ${body.result?.content?.[0]?.text ?? JSON.stringify(body)}`);
    }

    return target;
}

function pinnable(): boolean {
    return Os.cpus().length >= 2 && ChildProcess.spawnSync('taskset', ['-c', '1', 'true']).status === 0;
}

async function main(): Promise<void> {
    if (!PINNED && !process.env.BENCH_UNPINNED && pinnable()) {
        const rerun = ChildProcess.spawnSync('taskset', ['-c', '1', process.execPath, __filename], { stdio: 'inherit', env: { ...process.env, BENCH_PINNED: '1' } });
        process.exit(rerun.status ?? 1);
    }

    console.log(`API benchmark: 10 connections, ${ROUNDS} alternating rounds of ${DURATION_S} s each, medians${PINNED ? "; server on CPU 0, load on CPU 1" : ""}\n`);
    const api = await startServer('api-server.js');
    try {
        const base = `http://127.0.0.1:${api.port}`;
        const result = await compare(
            { label: 'same handler, auth off', url: `${base}/bench/projects-without-auth` },
            { label: 'API key', url: `${base}/v1/projects`, headers: { authorization: api.token } }
        );
        console.log('GET /v1/projects (21 projects) with an API key: key lookup, checksum, scope, project role');
        console.log(`  same handler with auth off   ${result.baseline.toFixed(0).padStart(8)} req/s`);
        console.log(`  API-key authenticated        ${result.subject.toFixed(0).padStart(8)} req/s`);
        console.log(`  ratio                        ${result.ratio.toFixed(3).padStart(8)}   (target >= 0.85)`);
        const trivial = await compare({ label: 'trivial', url: `${base}/bench/trivial` }, { label: 'trivial auth', url: `${base}/bench/trivial-auth`, headers: { authorization: api.token } });
        console.log(`  trivial ${trivial.baseline.toFixed(0)} vs trivial+auth ${trivial.subject.toFixed(0)}: auth costs ${(1e6 / trivial.subject - 1e6 / trivial.baseline).toFixed(1)} us`);

        const mcp = await mcpTarget(`http://127.0.0.1:${api.mcpPort}/mcp`, api.token);
        const listed = await compare({ label: `GET ${MCP_LIST.rest}`, url: `${base}${MCP_LIST.rest}`, headers: { authorization: api.token } }, mcp);
        console.log(`\n${MCP_LIST.tool} through MCP (POST /mcp tools/call: introspection, a new SDK Server and transport, the REST call in-process)`);
        console.log(`  ${`GET ${MCP_LIST.rest} directly`.padEnd(28)} ${listed.baseline.toFixed(0).padStart(8)} req/s`);
        console.log(`  ${`${MCP_LIST.tool} through MCP`.padEnd(28)} ${listed.subject.toFixed(0).padStart(8)} req/s`);
        console.log(`  ratio                        ${listed.ratio.toFixed(3).padStart(8)}   (target >= 0.5)`);
    }
    finally {
        api.child.send('stop');
        await new Promise((resolve) => api.child.once('exit', resolve));
    }

    await listsAndLogs('sqlite');
    if (process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL) {
        await listsAndLogs('postgres');
    }
    else {
        console.log('\nLists and logs on PostgreSQL: skipped (set BENCH_POSTGRES_URL, e.g. postgres://postgres@127.0.0.1:5432/test)');
    }
}

main().catch((err) => {
    console.error(err);
    process.exit(1);
});
