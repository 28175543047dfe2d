// `npm run -s mcp:conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance, through
// ../shared/tools/mcp-conformance) against a running API and MCP server on 127.0.0.1: against /mcp/docs directly,
// and against /mcp through a small proxy that adds a test key's Authorization header to every request (the suite
// cannot send one; /mcp authentication is never switched off). Prints each scenario's checks and a closing line
// `mcp-conformance: N passed, N failed`; exits 1 when a check failed or the suite could not run.
import * as ChildProcess from 'node:child_process';
import * as Fs from 'node:fs';
import * as Http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as Path from 'node:path';

import { createKey, register } from '../test/helpers/api';
import { mcpInstance } from '../test/helpers/mcp';

const root = Path.join(__dirname, '..');
const tool = process.env.MCP_CONFORMANCE_TOOL ?? Path.join(root, '..', 'shared', 'tools', 'mcp-conformance');

/** A proxy to `upstream.target` that adds `upstream.authorization` to each request and passes everything else (Host and Origin included) as sent. */
function authorizingProxy(upstream: { target?: URL; authorization?: string }): Promise<Http.Server> {
    const proxy = Http.createServer((request, response) => {
        const forward = Http.request({
            host: upstream.target!.hostname, port: upstream.target!.port, method: request.method, path: request.url,
            headers: { ...request.headers, authorization: upstream.authorization }
        }, (answer) => {
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(response);
        });
        forward.on('error', () => response.writeHead(502).end());
        request.pipe(forward);
    });
    return new Promise((resolve) => proxy.listen(0, '127.0.0.1', () => resolve(proxy)));
}

/** Runs the suite against one URL; resolves with its output and counts. */
function runSuite(label: string, url: string): Promise<{ passed: number; failed: number }> {
    return new Promise((resolve) => {
        const child = ChildProcess.spawn('bash', [tool, url], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (chunk) => out += chunk);
        child.stderr.on('data', (chunk) => out += chunk);
        child.on('close', () => {
            const lines = out.trim().split('\n');
            const closing = lines.map((line) => /^(\d+) passed, (\d+) failed$/.exec(line)).filter(Boolean).pop();
            lines.filter((line) => !/^\d+ passed, \d+ failed$/.test(line)).forEach((line) => console.log(`${label} ${line}`));
            const counts = closing ? { passed: Number(closing[1]), failed: Number(closing[2]) } : { passed: 0, failed: 1 };
            console.log(`${label} ${counts.passed} passed, ${counts.failed} failed`);
            resolve(counts);
        });
    });
}

async function main(): Promise<number> {
    if (!Fs.existsSync(tool)) {
        console.log(`mcp-conformance: ${tool} is missing (set MCP_CONFORMANCE_TOOL)`);
        console.log('mcp-conformance: 0 passed, 1 failed');
        return 1;
    }

    // The suite's valid-origin check sends the proxy's own origin: the server allows it as an operator allows the
    // origin of a front end that calls it (MCP_ALLOWED_ORIGINS). Hosts and other origins stay refused.
    const upstream: { target?: URL; authorization?: string } = {};
    const proxy = await authorizingProxy(upstream);
    const proxyOrigin = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const instance = await mcpInstance({ mcpAllowedOrigins: ['http://localhost:3001', 'http://localhost:3000', proxyOrigin] });
    try {
        const user = await register(instance.api.server, 'conformance');
        upstream.authorization = (await createKey(instance.api.server, user, ['projects:read', 'apps:read'])).token;
        upstream.target = new URL(instance.url);
        const docs = await runSuite('[/mcp/docs]', `${instance.url}/mcp/docs`);
        const platform = await runSuite('[/mcp]', `${proxyOrigin}/mcp`);
        const passed = docs.passed + platform.passed;
        const failed = docs.failed + platform.failed;
        console.log(`mcp-conformance: ${passed} passed, ${failed} failed`);
        return failed ? 1 : 0;
    }
    finally {
        await new Promise((resolve) => proxy.close(resolve));
        await instance.stop();
    }
}

main().then((status) => process.exit(status), (err: Error) => {
    console.log(`mcp-conformance: could not run: ${err.stack ?? err.message}`);
    console.log('mcp-conformance: 0 passed, 1 failed');
    process.exit(1);
});
