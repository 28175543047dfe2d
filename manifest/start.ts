import { deployment } from '.';
import { ConfigError, loadConfig } from './config';

// `npm start`: the API, dashboard and docs on the configured port, with their URLs printed; SIGINT or SIGTERM drain
// and stop it. JOBS_MODE=worker runs the job workers only: no port is opened.
async function main(): Promise<void> {
    const config = loadConfig(process.env);
    if (config.jobs.mode === 'worker') {
        const worker = await deployment({ config });
        worker.plugins['hostless-jobs'].queue.start();
        process.stdout.write(`Hostless job worker running (${config.jobs.concurrency} at a time)\n`);
        stopOnSignal(() => worker.stop({ timeout: 10_000 }));
        return;
    }

    const server = await deployment({ config, start: true });
    const where = config.database.client === 'sqlite' ? `SQLite at ${config.database.filename}` : 'PostgreSQL (DATABASE_URL)';

    process.stdout.write([
        '',
        `Hostless is running (${where})`,
        `  API        ${config.publicUrl}/v1   (listening on ${server.info.uri})`,
        `  Dashboard  ${config.publicUrl}/dashboard`,
        `  Docs       ${config.publicUrl}/docs`,
        `  Health     ${config.publicUrl}/readyz`,
        `  Register   curl -X POST ${config.publicUrl}/v1/auth/register -H 'content-type: application/json' -d '{"email":"you@example.com","password":"a long password"}'`,
        '',
        ''
    ].join('\n'));

    stopOnSignal(() => server.stop({ timeout: 10_000 }));
}

function stopOnSignal(stop: () => Promise<void>): void {
    const handler = async (signal: string) => {
        process.stdout.write(`\n${signal}: stopping (requests and jobs in flight finish first)\n`);
        await stop();
        process.exit(0);
    };

    process.once('SIGINT', () => void handler('SIGINT'));
    process.once('SIGTERM', () => void handler('SIGTERM'));
}

main().catch((err: Error) => {
    process.stderr.write(`${err instanceof ConfigError ? err.message : err.stack ?? err.message}\n`);
    process.exit(1);
});
