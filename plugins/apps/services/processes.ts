import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { isUniqueViolation } from '../../../lib/db/errors';
import { newId } from '../../../lib/ids';
import { PLANS } from '../../../lib/plans';
import { nowIso } from '../../../lib/time';
import { AppProcess, type App } from '../models/app';

// Worker processes of an app (a queue consumer beside the web process): they ship with the app's next deployment.
// The access pipeline has resolved the app and the process; these methods act on what it loaded.
export class ProcessesService {
    constructor(private readonly knex: Knex) { }

    async list(app: App): Promise<AppProcess[]> {
        return await AppProcess.query(this.knex).where({ app_id: app.id }).orderBy('name');
    }

    async create(app: App, input: { name: string; command: string; instances?: number | undefined }): Promise<AppProcess> {
        this.assertInstances(app, input.instances ?? 1);
        const now = nowIso();
        try {
            return await AppProcess.query(this.knex).insertAndFetch({
                id: newId('prc'), appId: app.id, projectId: app.projectId, name: input.name, command: input.command, instances: input.instances ?? 1, createdAt: now, updatedAt: now
            });
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict(`${app.name} already has a worker process named ${input.name}`) : err;
        }
    }

    async update(app: App, process: AppProcess, input: { command?: string | undefined; instances?: number | undefined }): Promise<AppProcess> {
        if (input.instances !== undefined) {
            this.assertInstances(app, input.instances);
        }

        return AppProcess.query(this.knex).patchAndFetchById(process.id, { ...input, updatedAt: nowIso() });
    }

    async remove(process: AppProcess): Promise<void> {
        await AppProcess.query(this.knex).deleteById(process.id);
    }

    private assertInstances(app: App, instances: number): void {
        const bounds = PLANS[app.plan];
        if (instances > bounds.maxInstances) {
            throw Boom.conflict(`${instances} instance(s) is outside the ${app.plan} plan's bounds (${bounds.minInstances}-${bounds.maxInstances})`);
        }
    }
}

/** The app's processes, for a deployment's configuration snapshot. */
export async function processSnapshot(trx: Knex.Transaction, app: App) {
    const processes = await trx('app_processes').where({ app_id: app.id }).orderBy('name').select('name', 'command', 'instances');
    return processes.map((row: { name: string; command: string; instances: number | string }) => ({ name: row.name, command: row.command, instances: Number(row.instances) }));
}
