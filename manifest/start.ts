import type { Server } from '@hapi/hapi';

import { deployment, mcpDeployment } from '.';
import { applyHeapGrowth } from '../lib/heap';
import { ConfigError, loadConfig, loadMcpConfig, type McpConfig } from './config';
import { DOCS_MCP_PATH } from './mcp';
import { stopOnSignals } from './shutdown';

// `npm start` runs the API (with the dashboard and the docs site) and the MCP server in one process on two ports (the
// MCP server reaches the API in-process) and prints their URLs. `node dist/manifest/start.js api|mcp` runs one alone
// (the MCP server alone reaches the API over HTTP at API_BASE_URL). JOBS_MODE=worker runs the job workers (and the
// scheduler) only: no port is opened. SIGINT or SIGTERM drain and stop the servers (manifest/shutdown.ts). stdio mode has its own entry, manifest/stdio.ts.
const MODES = ['all', 'api', 'mcp'] as const;
type Mode = typeof MODES[number];

const print = (lines: string[]) => process.stdout.write([...lines, '', ''].join('\n'));

function mcpLines(config: McpConfig, server: Server): string[] {
    return [
        `  MCP        ${config.mcpPublicUrl}/mcp   (listening on ${server.info.uri}; API at ${config.apiBaseUrl})`,
        `  MCP docs   ${config.mcpPublicUrl}${DOCS_MCP_PATH}   (no credential)`
    ];
}

async function start(mode: Mode): Promise<Server[]> {
    if (mode === 'mcp') {
        const config = loadMcpConfig(process.env);
        applyHeapGrowth(config.heapGrowingPercent ?? 0);
        const mcp = await mcpDeployment({ config, start: true });
        print(['', 'Hostless MCP server is running', ...mcpLines(config, mcp)]);
        return [mcp];
    }

    const config = loadConfig(process.env);
    applyHeapGrowth(config.heapGrowingPercent ?? 0);
    if (config.jobs.mode === 'worker') {
        const worker = await deployment({ config });
        worker.plugins['hostless-jobs'].queue.start();
        worker.plugins['hostless-resources'].services.scheduler.start();
        await worker.plugins['hostless-runtime']?.start();       // the process runtime: heartbeat, samples, take-overs
        print(['', `Hostless job worker running (${config.jobs.concurrency} at a time)`]);
        return [worker];
    }

    const api = await deployment({ config, start: true });
    const mcp = mode === 'all' ? await mcpDeployment({ config, api, start: true }) : null;
    const where = config.database.client === 'sqlite' ? `SQLite at ${config.database.filename}` : 'PostgreSQL (DATABASE_URL)';
    print([
        '',
        `Hostless is running (${where})`,
        `  API        ${config.publicUrl}/v1   (listening on ${api.info.uri})`,
        `  Dashboard  ${config.publicUrl}/dashboard`,
        `  Docs       ${config.publicUrl}/docs`,
        `  Health     ${config.publicUrl}/readyz`,
        ...(mcp ? mcpLines(config, mcp) : []),
        `  Email      ${config.notifications.smtpUrl ? `SMTP at ${new URL(config.notifications.smtpUrl).host}` : 'not configured (SMTP_URL is unset): messages are kept as not_configured'}`,
        `  Register   curl -X POST ${config.publicUrl}/v1/auth/register -H 'content-type: application/json' -d '{"email":"you@example.com","password":"a long password"}'`
    ]);
    return mcp ? [mcp, api] : [api];
}

async function main(): Promise<void> {
    const mode = (process.argv[2] ?? 'all') as Mode;
    if (!MODES.includes(mode)) {
        throw new ConfigError(`Unknown mode "${process.argv[2]}": start with no argument (API and MCP server), or with one of ${MODES.join(', ')}.`);
    }

    stopOnSignals(await start(mode));
}

main().catch((err: Error) => {
    process.stderr.write(`${err instanceof ConfigError ? err.message : err.stack ?? err.message}\n`);
    process.exit(1);
});
