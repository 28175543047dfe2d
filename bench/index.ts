// `npm run bench`: throughput ratios measured in one run, against a baseline run beside them. No timing is asserted
// anywhere: the numbers are printed for a person to read.
import * as ChildProcess from 'node:child_process';
import * as Os from 'node:os';
import * as Path from 'node:path';

import autocannon from 'autocannon';

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

function startServer(script: string): Promise<{ child: ChildProcess.ChildProcess; port: number; mcpPort: number; token: string }> {
    return new Promise((resolve, reject) => {
        const file = Path.join(__dirname, script);
        const child = PINNED
            ? ChildProcess.spawn('taskset', ['-c', '0', process.execPath, file], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
            : ChildProcess.fork(file, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        child.once('message', (message: { port: number; mcpPort: number; token: string }) => resolve({ child, ...message }));
        child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    });
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
    }
}

main().catch((err) => {
    console.error(err);
    process.exit(1);
});
