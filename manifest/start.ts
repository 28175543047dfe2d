import { deployment } from '.';
import { ConfigError, loadConfig } from './config';

// `npm start`: the API, dashboard and docs on the configured port, with their URLs printed; SIGINT or SIGTERM drain and stop it.
async function main(): Promise<void> {
    const config = loadConfig(process.env);
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

    const stop = async (signal: string) => {
        process.stdout.write(`\n${signal}: stopping (in-flight requests finish first)\n`);
        await server.stop({ timeout: 10_000 });
        process.exit(0);
    };

    process.once('SIGINT', () => void stop('SIGINT'));
    process.once('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: Error) => {
    process.stderr.write(`${err instanceof ConfigError ? err.message : err.stack ?? err.message}\n`);
    process.exit(1);
});
