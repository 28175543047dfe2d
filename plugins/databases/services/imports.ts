import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { newId } from '../../../lib/ids';
import { DestinationPolicy } from '../../../lib/outside/destination';
import { ImportFailure, NotOursError, type ProvisionerContext } from '../../../lib/provisioner/driver';
import { displaySource, parseSourceUrl, resolveSource, type SourceUrl } from '../../../lib/provisioner/source';
import type { LogFilters } from '../../../lib/resources/logs';
import type { JobContext } from '../../../lib/queue/types';
import { nowIso } from '../../../lib/time';
import { Database, DatabaseImport } from '../models/database';
import type { DatabasesService } from './databases';

// Imports replace a database's contents with a copy of another PostgreSQL database. The request checks the source
// URL and its host against the outbound destination rules, moves the database to importing and queues the job, in
// one transaction; the job checks the host again (a name may resolve elsewhere by then), has the provisioner copy
// it, writes the progress as the import's log lines, and ends succeeded or failed with the reason, the database
// available again either way (a failed import leaves its contents as they were). The source's password lives only
// sealed in the import's row and in the copy's own password file: never in a line, an error or a response.
export const IMPORT_JOB = 'databases.import';

export class ImportsService {
    private readonly policy: DestinationPolicy;
    private readonly knex: Knex;

    constructor(private readonly databases: DatabasesService, allowlist: readonly string[]) {
        this.policy = new DestinationPolicy(allowlist);
        this.knex = databases.knex;
    }

    async start(database: Database, sourceUrl: string): Promise<DatabaseImport> {
        const source = parseSourceUrl(sourceUrl) as SourceUrl;  // the route validated it
        this.databases.lifecycle.next(database, 'import');
        const provisioner = this.databases.provisioner(database);
        try {
            await resolveSource(source, this.policy);
        }
        catch (err) {
            // A name that does not resolve now may later: the job says so if it still does not.
            if (!(err instanceof ImportFailure) || !/could not be resolved/.test(err.message)) {
                throw err instanceof ImportFailure ? Boom.badRequest(`"sourceUrl" ${err.message.replace(/^The source is refused: /, 'is refused: ')}`) : err;
            }
        }

        return this.knex.transaction(async (trx) => {
            await this.databases.lifecycle.move(trx, database, 'import');
            const now = nowIso();
            const started = await DatabaseImport.query(trx).insertAndFetch({
                id: newId('cln'), databaseId: database.id, projectId: database.projectId, status: 'queued', driver: provisioner.name,
                source: displaySource(source), sourceSealed: this.databases.seal(sourceUrl), error: null,
                createdAt: now, startedAt: null, finishedAt: null, updatedAt: now
            });
            await this.databases.options.queue.enqueue(IMPORT_JOB, { importId: started.id }, { trx, idempotencyKey: `database:import:${started.id}` });
            await this.databases.event(trx, database, 'info', `Import ${started.id} from ${started.source} requested`);
            return started;
        });
    }

    /** The job: the copy, from whatever state the import is in to succeeded or failed. */
    async run(importId: string, job: JobContext): Promise<void> {
        const started = await DatabaseImport.query(this.knex).findById(importId);
        const database = started && await Database.query(this.knex).findById(started.databaseId);
        if (!started || !database || started.status === 'succeeded' || started.status === 'failed') {
            return;
        }

        const plain = this.databases.open(started.sourceSealed);
        const source = parseSourceUrl(plain) as SourceUrl;
        const scrub = (text: string) => source.password.length >= 4 ? text.split(source.password).join('[redacted]') : text;
        const context: ProvisionerContext = {
            signal: job.signal,
            log: (level, message) => this.line(started, level, scrub(message))
        };

        await DatabaseImport.query(this.knex).patch({ status: 'running', startedAt: started.startedAt ?? nowIso(), updatedAt: nowIso() }).where({ id: started.id });
        await context.log('info', `Import started (attempt ${job.attempt} of ${job.maxAttempts}, ${started.driver} provisioner)`);
        try {
            const checked = await resolveSource(source, this.policy);
            await this.databases.provisioner(database).import(this.databases.target(database), this.databases.credentials(database), checked, context);
        }
        catch (err) {
            if (err instanceof ImportFailure || err instanceof NotOursError) {
                return this.finish(started, database, 'failed', scrub(err.message));
            }

            if (job.attempt >= job.maxAttempts || Boom.isBoom(err)) {
                return this.finish(started, database, 'failed', Boom.isBoom(err) ? err.message : 'The platform could not complete the import; it was retried and gave up');
            }

            await context.log('warn', 'The attempt was interrupted; the import will be tried again');
            throw err;
        }

        await this.finish(started, database, 'succeeded', null);
    }

    async logs(started: DatabaseImport, filters: LogFilters) {
        const lines = await this.databases.options.services.logs.query({ resourceId: started.databaseId, runId: started.id, streams: ['import'], order: 'oldest' }, filters);
        return lines.map((line) => ({ timestamp: line.timestamp, level: line.level, message: line.message, truncated: line.truncated }));
    }

    private async finish(started: DatabaseImport, database: Database, status: 'succeeded' | 'failed', error: string | null): Promise<void> {
        await this.knex.transaction(async (trx) => {
            const now = nowIso();
            await DatabaseImport.query(trx).patch({ status, error, finishedAt: now, updatedAt: now }).where({ id: started.id });
            await this.databases.lifecycle.move(trx, database, 'imported');
            await this.line(started, status === 'failed' ? 'error' : 'info', status === 'failed' ? `Import failed: ${error}` : 'Import succeeded', trx);
            await this.databases.event(trx, database, status === 'failed' ? 'warn' : 'info', `Import ${started.id} ${status}${error ? `: ${error}` : ''}`);
        });
    }

    private async line(started: DatabaseImport, level: 'info' | 'warn' | 'error', message: string, db: Knex | Knex.Transaction = this.knex): Promise<void> {
        await this.databases.options.services.logs.write(db, {
            resourceType: 'database', resourceId: started.databaseId, projectId: started.projectId, stream: 'import', level, message, runId: started.id
        });
    }
}
