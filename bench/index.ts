// `npm run bench`: throughput ratios measured in one run, against a baseline run beside them. No timing is asserted
// anywhere: the numbers are printed for a person to read.
import * as ChildProcess from 'node:child_process';
import * as Os from 'node:os';
import * as Path from 'node:path';

import autocannon from 'autocannon';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

import { MODERN_REVISION } from '../lib/mcp/revision';
import { toolCosts, totalCost } from '../lib/mcp/token-cost';

import { SEARCH_WORD } from './lists-server';
import type { Usage } from './serve';

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
const CONNECTIONS = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Measure {
    rate: number;                                               // requests per second
    cpuUs: number;                                              // the server's CPU per request, in microseconds
}

interface Server {
    child: ChildProcess.ChildProcess;
    label: string;
    peakRssMb: number;
}

/** The server's CPU time and peak resident set so far (bench/serve.ts answers). */
function usage(server: Server): Promise<Usage> {
    return new Promise((resolve) => {
        const listener = (message: { usage?: Usage }) => {
            if (message.usage) {
                server.child.off('message', listener);
                server.peakRssMb = Math.max(server.peakRssMb, message.usage.maxRssMb);
                resolve(message.usage);
            }
        };
        server.child.on('message', listener);
        server.child.send('usage');
    });
}

async function load(server: Server, target: Target, duration: number, connections = CONNECTIONS): Promise<Measure> {
    const before = await usage(server);
    const result = await autocannon({ url: target.url, connections, duration, method: target.method ?? 'GET', headers: target.headers ?? {}, ...(target.body ? { body: target.body } : {}) });
    const after = await usage(server);
    if (result.non2xx || result.errors) {
        throw new Error(`${target.label}: ${result.non2xx} non-2xx answers and ${result.errors} errors`);
    }

    return { rate: result.requests.average, cpuUs: (after.cpuUs - before.cpuUs) / Math.max(1, result.requests.total) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

interface Row {
    figure: string;
    baseline: Measure;
    subject: Measure;
    ratio: number;                                              // subject's throughput over the baseline's
    cpuRatio: number | null;                                    // the baseline's CPU per request over the subject's
    target: number | null;
}

const rows: Row[] = [];

/** Alternates the targets round by round, so drift on the machine hits both alike; records the medians as a row. */
async function compare(server: Server, figure: string, target: number | null, baseline: Target, subject: Target, options: { cpu?: boolean; warmupS?: number; connections?: number } = {}): Promise<Row> {
    await load(server, baseline, options.warmupS ?? 2, options.connections);
    await load(server, subject, options.warmupS ?? 2, options.connections);
    const samples = { baseline: [] as Measure[], subject: [] as Measure[] };
    for (let round = 0; round < ROUNDS; ++round) {
        samples.baseline.push(await load(server, baseline, DURATION_S, options.connections));
        samples.subject.push(await load(server, subject, DURATION_S, options.connections));
    }

    const of = (measures: Measure[]) => ({ rate: median(measures.map((m) => m.rate)), cpuUs: median(measures.map((m) => m.cpuUs)) });
    const result = { baseline: of(samples.baseline), subject: of(samples.subject) };
    const row = { figure, target, ...result, ratio: result.subject.rate / result.baseline.rate, cpuRatio: options.cpu === false ? null : result.baseline.cpuUs / result.subject.cpuUs };
    rows.push(row);
    console.log(`  ${figure}: ${row.ratio.toFixed(2)}${row.cpuRatio === null ? '' : ` (CPU ${row.cpuRatio.toFixed(2)})`}`);
    return row;
}

// On a machine with two or more CPUs and taskset, the server runs on CPU 0 and the load generator on CPU 1, so they
// never compete for one core (run-to-run noise here is otherwise ±20%); elsewhere both float.
const PINNED = process.env.BENCH_PINNED === '1';
const servers: Server[] = [];

function startServer<T extends object = { port: number; mcpPort: number; token: string; listedToken: string; jwt: string }>(label: string, script: string, args: string[] = []): Promise<T & Server> {
    return new Promise((resolve, reject) => {
        const file = Path.join(__dirname, script);
        const child = PINNED
            ? ChildProcess.spawn('taskset', ['-c', '0', process.execPath, file, ...args], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
            : ChildProcess.fork(file, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        child.once('message', (message: T) => {
            const server = { ...message, child, label, peakRssMb: 0 };
            servers.push(server);
            resolve(server);
        });
        child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
    });
}

async function stopServer(server: Server): Promise<void> {
    await usage(server);
    server.child.send('stop');
    await new Promise((resolve) => server.child.once('exit', resolve));
}

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
    const name = database === 'sqlite' ? 'SQLite' : 'PostgreSQL';
    const server = await startServer<ListsServer>(`lists and logs (${name})`, 'lists-server.js', [database]);
    try {
        const base = `http://127.0.0.1:${server.port}`;
        const { counts } = server;
        console.log(`\nLists and logs on ${name} (filled in ${((Date.now() - started) / 1000).toFixed(0)} s)`);
        const page = (who: 'small' | 'large'): Target => ({ label: `${who} page`, url: `${base}/v1/apps?limit=50`, headers: { authorization: server.tokens[who] } });
        await compare(server, `${name}: GET /v1/apps?limit=50, ${counts.largeApps.toLocaleString('en')} reachable apps vs ${counts.smallApps}`, 0.8, page('small'), page('large'));
        await compare(server, `${name}: the page of 50 (${counts.smallApps} apps) vs a trivial route, no auth`, 0.25, { label: 'trivial', url: `${base}/bench/trivial` }, page('small'));
        const search = (who: 'small' | 'large'): Target => ({ label: `${who} search`, url: `${base}/v1/apps/${server.logApps[who]}/logs?q=${SEARCH_WORD}&limit=100`, headers: { authorization: server.tokens.logs } });
        await compare(server, `${name}: log search (1% match), ${counts.largeLines.toLocaleString('en')} lines vs ${counts.smallLines.toLocaleString('en')}`, 0.5, search('small'), search('large'));
    }
    finally {
        await stopServer(server);
    }
}

const REVISIONS = ['2025-03-26', '2025-06-18', '2025-11-25', MODERN_REVISION];

/** A tools/call of the list tool in one revision, checked once to succeed, so the load measures answers and not refusals. */
async function mcpTarget(url: string, token: string, revision: string): Promise<Target> {
    const modern = revision === MODERN_REVISION;
    const meta = modern ? { _meta: { 'io.modelcontextprotocol/protocolVersion': revision, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '0' }, 'io.modelcontextprotocol/clientCapabilities': {} } } : {};
    const target: Target = {
        label: `${MCP_LIST.tool} ${revision}`,
        url,
        method: 'POST',
        headers: {
            authorization: token, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': revision,
            ...(modern ? { 'mcp-method': 'tools/call', 'mcp-name': MCP_LIST.tool } : {})
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: MCP_LIST.tool, arguments: {}, ...meta } })
    };
    const answer = await fetch(url, { method: 'POST', headers: target.headers!, body: target.body! });
    const body = await answer.json() as { result?: { isError?: boolean; content?: Array<{ text: string }> } };
    if (answer.status !== 200 || !body.result || body.result.isError) {
        throw new Error(`${MCP_LIST.tool} through MCP failed (${answer.status}): ${body.result?.content?.[0]?.text ?? JSON.stringify(body)}`);
    }

    return target;
}

/** The edge's cost: an app spending about 1 ms of CPU per request, through the edge (Host routing, proxy, metering,
 * a span) against the same instance on its own port; the server (the edge) and the app share CPU 0 in both runs.
 * No CPU ratio: the app's own process does the work of the baseline, the edge's process none of it. The edge's path
 * takes about 5,000 requests to reach its steady cost (V8 optimising the proxy: its CPU a request falls from about
 * 650 us to 300 us over the first 10 s here), so both paths are warmed for 8 s before the rounds. */
async function edge(): Promise<void> {
    const server = await startServer<{ port: number; appPort: number; host: string }>('edge', 'edge-server.js');
    try {
        await compare(server, 'edge: an app (1 ms CPU a request) through the edge vs directly', 0.7,
            { label: 'app directly', url: `http://127.0.0.1:${server.appPort}/` },
            { label: 'app through the edge', url: `http://127.0.0.1:${server.port}/`, headers: { host: `${server.host}:${server.port}` } },
            { cpu: false, warmupS: 8 }
        );
    }
    finally {
        await stopServer(server);
    }
}

/** The tokens (o200k) of the default tool lists, as tools/list answers them: name, description and input schema per tool, output schemas in bytes apart. */
async function toolListCost(origin: string, token: string): Promise<void> {
    for (const [path, headers] of [['/mcp', { authorization: token }], ['/mcp/docs', {}]] as const) {
        const answer = await fetch(`${origin}${path}`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' })
        });
        const { result } = await answer.json() as { result: { tools: Parameters<typeof toolCosts>[0] } };
        const costs = toolCosts(result.tools, countTokens);
        const total = totalCost(costs);
        const kinds = totalCost(costs.filter((cost) => /_(list|get|create|patch|delete)$/.test(cost.name)));
        console.log(`\ntools/list on ${path}: ${total.tools} tools, ${total.tokens} tokens (o200k: name, description, input schema); output schemas ${total.outputSchemaBytes} bytes apart`);
        if (path === '/mcp') {
            console.log(`  the ${kinds.tools} tools of the six kinds: ${kinds.tokens} tokens (target < 5500)`);
        }

        for (const cost of costs) {
            console.log(`  ${cost.name.padEnd(22)} ${String(cost.tokens).padStart(5)} tokens${cost.outputSchemaBytes ? `   output schema ${cost.outputSchemaBytes} bytes` : ''}`);
        }
    }
}

function pinnable(): boolean {
    return Os.cpus().length >= 2 && ChildProcess.spawnSync('taskset', ['-c', '1', 'true']).status === 0;
}

/** The API and MCP figures: the key's cost against auth off and against @hapi/jwt, the allow-list's, MCP's. */
async function api(): Promise<void> {
    const server = await startServer('API and MCP', 'api-server.js');
    try {
        const base = `http://127.0.0.1:${server.port}`;
        const key = { authorization: server.token };
        const projects: Target = { label: 'API key', url: `${base}/v1/projects`, headers: key };
        console.log('\nAPI (GET /v1/projects lists 21 projects; the key check is a lookup, a digest, scope and project role)');
        await compare(server, 'GET /v1/projects with an API key vs the same handler, auth off', 0.85, { label: 'auth off', url: `${base}/bench/projects-without-auth` }, projects);
        const trivialTargets: [Target, Target] = [{ label: 'trivial', url: `${base}/bench/trivial` }, { label: 'trivial auth', url: `${base}/bench/trivial-auth`, headers: key }];
        const trivial = await compare(server, 'trivial route with an API key vs auth off', 0.85, ...trivialTargets);
        console.log(`  the key check costs ${(trivial.subject.cpuUs - trivial.baseline.cpuUs).toFixed(1)} us of CPU a request (${(1e6 / trivial.subject.rate - 1e6 / trivial.baseline.rate).toFixed(1)} us by throughput)`);
        // The same with one connection: no two requests share a turn, so no credential lookup is read with another's
        // (lib/db/lookup-batch.ts). No target: the row shows what the check costs a lone request.
        const lone = await compare(server, 'trivial route with an API key vs auth off, 1 connection', null, ...trivialTargets, { connections: 1 });
        console.log(`  alone, the key check costs ${(lone.subject.cpuUs - lone.baseline.cpuUs).toFixed(1)} us of CPU a request`);
        await compare(server, 'GET /v1/projects with an API key vs behind @hapi/jwt (stateless JWT)', 1.0, { label: 'JWT', url: `${base}/bench/projects-jwt`, headers: { authorization: server.jwt } }, projects);
        await compare(server, 'trivial route: a key with an allow-list (3 ranges) vs without', 0.95, { label: 'trivial auth', url: `${base}/bench/trivial-auth`, headers: key }, { label: 'allow-listed', url: `${base}/bench/trivial-auth`, headers: { authorization: server.listedToken } });

        await toolListCost(`http://127.0.0.1:${server.mcpPort}`, server.token);
        console.log(`\n${MCP_LIST.tool} through MCP (POST /mcp tools/call: introspection, a new SDK Server and transport, the REST call in-process), per revision`);
        const targets = await Promise.all(REVISIONS.map((revision) => mcpTarget(`http://127.0.0.1:${server.mcpPort}/mcp`, server.token, revision)));
        for (const target of targets) {
            await load(server, target, 2);                      // every path warmed before the first comparison, not only the first one's
        }

        for (const [i, revision] of REVISIONS.entries()) {
            await compare(server, `${MCP_LIST.tool} through MCP (${revision}) vs GET ${MCP_LIST.rest}`, 0.5, { label: `GET ${MCP_LIST.rest}`, url: `${base}${MCP_LIST.rest}`, headers: key }, targets[i]);
        }
    }
    finally {
        await stopServer(server);
    }
}

async function listsAndLogsEverywhere(): Promise<void> {
    await listsAndLogs('sqlite');
    if (process.env.BENCH_POSTGRES_URL ?? process.env.TEST_POSTGRES_URL) {
        await listsAndLogs('postgres');
    }
    else {
        console.log('\nLists and logs on PostgreSQL: skipped (set BENCH_POSTGRES_URL, e.g. postgres://postgres@127.0.0.1:5432/test)');
    }
}

/** The one table: each figure's two throughputs, their ratio, the server's CPU per request and its ratio, the target. */
function printTable(): void {
    const cells = (row: Row) => [
        row.figure, row.baseline.rate.toFixed(0), row.subject.rate.toFixed(0), row.ratio.toFixed(2),
        row.cpuRatio === null ? '' : `${row.baseline.cpuUs.toFixed(0)} / ${row.subject.cpuUs.toFixed(0)}`, row.cpuRatio?.toFixed(2) ?? '',
        row.target === null ? '' : `>= ${row.target}`, row.target === null ? '' : row.ratio >= row.target ? 'yes' : (row.cpuRatio ?? 0) >= row.target ? 'by CPU only' : 'no'
    ];
    const lines = [
        ['Figure', 'Baseline req/s', 'Subject req/s', 'Ratio', 'CPU us/req (base / subject)', 'CPU ratio', 'Target', 'Met'],
        ...rows.map(cells),
        ...servers.map((server) => [`peak RSS: ${server.label} process`, '', '', '', '', '', '<= 200 MB', `${server.peakRssMb.toFixed(0)} MB`])
    ];
    console.log(`\n${new Date().toISOString().slice(0, 10)}, ${Os.cpus().length} x ${Os.cpus()[0]?.model ?? 'unknown CPU'}, Node.js ${process.version}, ` +
        `${ROUNDS} alternating rounds of ${DURATION_S} s, medians, ${CONNECTIONS} connections unless a row says otherwise${PINNED ? ', server on CPU 0 and load on CPU 1' : ''}\n`);
    console.log('CPU is the measured server process\'s own (on PostgreSQL, the database\'s processes are not in it); "by CPU only": the CPU ratio meets the target, throughput does not.\n');
    for (const [i, line] of lines.entries()) {
        console.log(`| ${line.join(' | ')} |`);
        if (i === 0) {
            console.log(`|${line.map(() => '---').join('|')}|`);
        }
    }
}

async function main(): Promise<void> {
    if (!PINNED && !process.env.BENCH_UNPINNED && pinnable()) {
        const rerun = ChildProcess.spawnSync('taskset', ['-c', '1', process.execPath, __filename], { stdio: 'inherit', env: { ...process.env, BENCH_PINNED: '1' } });
        process.exit(rerun.status ?? 1);
    }

    // BENCH_ONLY=api, edge or lists runs one part alone.
    const only = process.env.BENCH_ONLY;
    if (!only || only === 'api') {
        await api();
    }

    if (!only || only === 'edge') {
        await edge();
    }

    if (!only || only === 'lists') {
        await listsAndLogsEverywhere();
    }

    printTable();
}

main().catch((err) => {
    console.error(err);
    process.exit(1);
});
