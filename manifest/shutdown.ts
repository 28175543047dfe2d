import type { Server } from '@hapi/hapi';

// Graceful shutdown: on SIGTERM or SIGINT every server stops in order (the MCP server before the API it calls). A
// stopping API server first stops accepting connections and lets the requests in flight finish (plugins/health), then
// its job workers finish their running jobs, the runtime stops the processes it started, and the database pool is
// closed; the process then exits 0 (1 if a step failed). A second signal ends the process at once.
export const STOP_TIMEOUT_MS = 10_000;

export function stopOnSignals(servers: readonly Server[], write: (line: string) => void = (line) => process.stdout.write(line)): void {
    let stopping = false;
    const stop = async (signal: NodeJS.Signals) => {
        if (stopping) {
            write(`${signal} again: exiting now\n`);
            process.exit(1);
        }

        stopping = true;
        write(`\n${signal}: stopping (requests and jobs in flight finish first)\n`);
        try {
            for (const server of servers) {
                await server.stop({ timeout: STOP_TIMEOUT_MS });
            }
        }
        catch (err) {
            write(`Stopping failed: ${(err as Error).message}\n`);
            process.exit(1);
        }

        write('Stopped\n');
        process.exit(0);
    };

    process.on('SIGINT', (signal) => void stop(signal));
    process.on('SIGTERM', (signal) => void stop(signal));
}
