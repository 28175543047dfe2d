import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { isUniqueViolation } from '../../../lib/db/errors';
import { newId } from '../../../lib/ids';
import { PLANS } from '../../../lib/plans';
import type { Allocation } from '../../../lib/resources/allocation';
import { nowIso } from '../../../lib/time';
import { AppProcess, type App } from '../models/app';

// Worker processes of an app (a queue consumer beside the web process): they ship with the app's next deployment.
// The access pipeline has resolved the app and the process; these methods act on what it loaded.
export const APP_PROCESS = 'app-process';

const refOfProcess = (app: App, process: { id: string; name: string }) => ({ type: APP_PROCESS, id: process.id, projectId: app.projectId, name: process.name });

// Each process's allocation is recorded for billing (lib/resources/allocation.ts): it runs, on the app's plan, while
// the app has a live deployment; the app going live starts the processes that were waiting for it (appProcessesLive).
export class ProcessesService {
    constructor(private readonly knex: Knex, private readonly allocation: Allocation) { }

    async list(app: App): Promise<AppProcess[]> {
        return await AppProcess.query(this.knex).where({ app_id: app.id }).orderBy('name');
    }

    async create(app: App, input: { name: string; command: string; instances?: number | undefined }): Promise<AppProcess> {
        this.assertInstances(app, input.instances ?? 1);
        const now = nowIso();
        try {
            return await this.knex.transaction(async (trx) => {
                const process = await AppProcess.query(trx).insertAndFetch({
                    id: newId('prc'), appId: app.id, projectId: app.projectId, name: input.name, command: input.command, instances: input.instances ?? 1, createdAt: now, updatedAt: now
                });
                await this.allocation.record(trx, refOfProcess(app, process), 'created', { running: !!app.liveDeploymentId, instances: process.instances, plan: app.plan });
                return process;
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

        return this.knex.transaction(async (trx) => {
            const changed = await AppProcess.query(trx).patchAndFetchById(process.id, { ...input, updatedAt: nowIso() });
            if (input.instances !== undefined && input.instances !== process.instances) {
                await this.allocation.record(trx, refOfProcess(app, process), 'scaled', { instances: input.instances });
            }

            return changed;
        });
    }

    async remove(app: App, process: AppProcess): Promise<void> {
        await this.knex.transaction(async (trx) => {
            await AppProcess.query(trx).deleteById(process.id);
            await this.allocation.record(trx, refOfProcess(app, process), 'deleted', { running: false, instances: 0 });
        });
    }

    private assertInstances(app: App, instances: number): void {
        const bounds = PLANS[app.plan];
        if (instances > bounds.maxInstances) {
            throw Boom.conflict(`${instances} instance(s) is outside the ${app.plan} plan's bounds (${bounds.minInstances}-${bounds.maxInstances})`);
        }
    }
}

/** A deployment of the app went live (in its transaction): its processes not running yet start, on the app's plan as it is now. */
export async function appProcessesLive(trx: Knex.Transaction, allocation: Allocation, app: App): Promise<void> {
    for (const process of await AppProcess.query(trx).where({ app_id: app.id })) {
        const last = await trx<{ resource_id: string; running: number | boolean; plan: string | null; seq: number }>('allocation_events')
            .where({ resource_id: process.id }).orderBy('seq', 'desc').first('running', 'plan');
        if (!last?.running) {
            await allocation.record(trx, refOfProcess(app, process), 'started', { running: true, instances: process.instances, plan: app.plan });
        }
        else if (last.plan !== app.plan) {
            await allocation.record(trx, refOfProcess(app, process), 'plan', { plan: app.plan });
        }
    }
}

/** The app is being deleted: its processes end with it, in its transaction. */
export async function appProcessesRemoved(trx: Knex.Transaction, allocation: Allocation, app: App): Promise<void> {
    for (const process of await AppProcess.query(trx).where({ app_id: app.id })) {
        await allocation.record(trx, refOfProcess(app, process), 'deleted', { running: false, instances: 0 });
    }
}

/** The app's processes, for a deployment's configuration snapshot. */
export async function processSnapshot(trx: Knex.Transaction, app: App) {
    const processes = await trx('app_processes').where({ app_id: app.id }).orderBy('name').select('name', 'command', 'instances');
    return processes.map((row: { name: string; command: string; instances: number | string }) => ({ name: row.name, command: row.command, instances: Number(row.instances) }));
}
