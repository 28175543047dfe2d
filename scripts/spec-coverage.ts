// Prints how many of the spec's routes are mounted, and lists the missing ones with the table row that declares them.
import * as Fs from 'node:fs';
import * as Os from 'node:os';
import * as Path from 'node:path';

import { deployment } from '../manifest';
import { loadConfig } from '../manifest/config';
import { ROUTE_TABLES } from '../manifest/routes';
import { specRoutes, mountedRoutes, compareWithSpec } from '../lib/spec-routes';

async function main() {
    const dataDir = Fs.mkdtempSync(Path.join(Os.tmpdir(), 'hostless-coverage-'));
    const config = { ...loadConfig({ DATA_DIR: dataDir }), port: 0 };
    const server = await deployment({ config, log: () => { } });
    try {
        const report = compareWithSpec(specRoutes(), mountedRoutes(server), ROUTE_TABLES);
        console.log(`spec routes mounted: ${report.mounted.length}/${report.spec.length}`);
        for (const problem of report.problems) {
            console.log(`problem: ${problem}`);
        }

        if (report.missing.length) {
            console.log('missing:');
            for (const route of report.missing) {
                console.log(`  ${route.method.padEnd(6)} /v1${route.path}  ${route.scope}${route.declaredAs ? `  (declared as ${route.declaredAs})` : '  (not declared in any table)'}`);
            }
        }

        process.exitCode = report.problems.length ? 1 : 0;
    }
    finally {
        await server.stop();
        Fs.rmSync(dataDir, { recursive: true, force: true });
    }
}

main().catch((err) => {
    console.error(err);
    process.exit(1);
});
