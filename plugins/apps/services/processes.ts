import * as Boom from '@hapi/boom';

import { isUniqueViolation } from '../../../lib/db/errors';
import { newId } from '../../../lib/ids';
import { PLANS } from '../../../lib/plans';
import { nowIso } from '../../../lib/time';
import { AppProcess, type App } from '../models/app';
import type { AppsContext } from './context';

// Worker processes of an app (a queue consumer beside the web process): they ship with the app's next deployment.
export class ProcessesService {
    constructor(private readonly context: AppsContext) { }

    async list(app: App): Promise<AppProcess[]> {
        return await AppProcess.query(this.context.knex).where({ app_id: app.id }).orderBy('name');
    }

    async get(app: App, id: string): Promise<AppProcess> {
        const process = await AppProcess.query(this.context.knex).findOne({ id, app_id: app.id });
        if (!process) {
            throw Boom.notFound('Worker process not found');
        }

        return process;
    }

    async create(app: App, input: { name: string; command: string; instances?: number }): Promise<AppProcess> {
        this.assertInstances(app, input.instances ?? 1);
        const now = nowIso();
        try {
            return await AppProcess.query(this.context.knex).insertAndFetch({
                id: newId('prc'), appId: app.id, projectId: app.projectId, name: input.name, command: input.command, instances: input.instances ?? 1, createdAt: now, updatedAt: now
            });
        }
        catch (err) {
            throw isUniqueViolation(err) ? Boom.conflict(`${app.name} already has a worker process named ${input.name}`) : err;
        }
    }

    async update(app: App, id: string, input: { command?: string; instances?: number }): Promise<AppProcess> {
        await this.get(app, id);
        if (input.instances !== undefined) {
            this.assertInstances(app, input.instances);
        }

        return AppProcess.query(this.context.knex).patchAndFetchById(id, { ...input, updatedAt: nowIso() });
    }

    async remove(app: App, id: string): Promise<void> {
        await this.get(app, id);
        await AppProcess.query(this.context.knex).deleteById(id);
    }

    private assertInstances(app: App, instances: number): void {
        const bounds = PLANS[app.plan];
        if (instances > bounds.maxInstances) {
            throw Boom.conflict(`${instances} instance(s) is outside the ${app.plan} plan's bounds (${bounds.minInstances}-${bounds.maxInstances})`);
        }
    }
}
