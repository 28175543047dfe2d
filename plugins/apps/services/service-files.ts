import * as Boom from '@hapi/boom';

import { newId } from '../../../lib/ids';
import { estimateCosts } from '../../../lib/service-file/costs';
import { parseServiceFile, renderServiceFile, ServiceFileError, type ServiceFileFormat } from '../../../lib/service-file/parse';
import type { ServiceFile } from '../../../lib/service-file/schema';
import { nowIso } from '../../../lib/time';
import { throughProvider } from '../../../lib/git/access';
import type { RuntimeFamily } from '../../../lib/resources/family';
import type { PriceList } from '../../../lib/plans';
import { AppProcess, type App } from '../models/app';
import { AppCronJob } from '../models/cron-job';
import { ServiceFileVersion } from '../models/service-file';

// Service files: the app and its companions as a declarative document. generate writes one from the current
// configuration; update validates and stores a new version; commit writes the latest version to the app's
// repository; calculate-costs and estimate price a file from the deployment's price list.
export const DEFAULT_PATH = 'hostless.yaml';

export class ServiceFilesService {
    constructor(private readonly family: RuntimeFamily<App>, private readonly prices: PriceList) { }

    private get knex() {
        return this.family.services.knex;
    }

    async generate(app: App): Promise<ServiceFile> {
        const db = this.knex;
        const ref = this.family.refOf(app);
        const [env, processes, cronJobs, domains] = await Promise.all([
            this.family.services.envVars.read(ref, false),
            AppProcess.query(db).where({ app_id: app.id }).orderBy('name'),
            AppCronJob.query(db).where({ app_id: app.id }).orderBy('name'),
            this.family.services.domains.list(ref)
        ]);
        return {
            version: 1,
            app: {
                name: app.name,
                plan: app.plan,
                region: app.region,
                instances: app.instances,
                ...(app.buildCommand ? { build: app.buildCommand } : {}),
                ...(app.startCommand ? { start: app.startCommand } : {}),
                ...(app.repoProvider && app.repoProvider !== 'git' ? { repository: { provider: app.repoProvider, repo: app.repoName!, branch: app.repoBranch! } } : {}),
                autoDeploy: !!app.autoDeploy,
                ...(env.length ? { env: env.map((row) => row.name) } : {}),
                ...(domains.length ? { domains: domains.map((row) => row.domain).sort() } : {})
            },
            ...(processes.length ? { workers: processes.map((row) => ({ name: row.name, command: row.command, instances: row.instances })) } : {}),
            ...(cronJobs.length ? { cronJobs: cronJobs.map((row) => ({ name: row.name, schedule: row.schedule, command: row.command })) } : {})
        };
    }

    /** Validates a posted file and stores it as the app's next version. The file must describe this app. */
    async update(app: App, content: string, format: ServiceFileFormat | undefined, userId: string): Promise<ServiceFileVersion> {
        const parsed = parse(content, format);
        if (parsed.file.app.name !== app.name) {
            throw Boom.badRequest(`The service file describes "${parsed.file.app.name}", not ${app.name}`);
        }

        return this.store(app, content, parsed.format, userId);
    }

    async latest(app: App): Promise<ServiceFileVersion | undefined> {
        return ServiceFileVersion.query(this.knex).where({ app_id: app.id }).orderBy('version', 'desc').first();
    }

    /** Writes the latest version (a freshly generated one when there is none) to the app's repository in a commit. */
    async commit(app: App, input: { path?: string; message?: string }, userId: string): Promise<ServiceFileVersion> {
        const repository = await this.family.services.git.repositoryOf(app, 'app', `/v1/apps/${app.name}`);
        const version = await this.latest(app) ?? await this.store(app, renderServiceFile(await this.generate(app), 'yaml'), 'yaml', userId);
        const path = input.path ?? (version.format === 'json' ? 'hostless.json' : DEFAULT_PATH);
        const result = await throughProvider(() => repository.provider.writeFile({
            repo: repository.repo, branch: repository.branch, path, content: version.content, message: input.message ?? `Update ${path} (version ${version.version})`
        }));
        return ServiceFileVersion.query(this.knex).patchAndFetchById(version.id, { committedSha: result.commitSha, committedAt: nowIso() });
    }

    /** The monthly cost of a posted file, or of the app's latest version, or of its current configuration. */
    async costs(app: App | null, content?: string, format?: ServiceFileFormat) {
        const file = content !== undefined ? parse(content, format).file
            : app ? await this.latest(app).then((version) => version ? parse(version.content, version.format).file : this.generate(app)) : null;
        if (!file) {
            throw Boom.badRequest('"content" is required');
        }

        return estimateCosts(file, this.prices);
    }

    private async store(app: App, content: string, format: ServiceFileFormat, userId: string): Promise<ServiceFileVersion> {
        return this.knex.transaction(async (trx) => {
            const [last] = await trx('service_files').where({ app_id: app.id }).max({ version: 'version' });
            return ServiceFileVersion.query(trx).insertAndFetch({
                id: newId('sfv'), appId: app.id, projectId: app.projectId, version: Number(last?.version ?? 0) + 1, format, content,
                createdBy: userId, committedSha: null, committedAt: null, createdAt: nowIso()
            });
        });
    }
}

function parse(content: string, format?: ServiceFileFormat) {
    try {
        return parseServiceFile(content, format);
    }
    catch (err) {
        throw err instanceof ServiceFileError ? Boom.badRequest(err.message) : err;
    }
}

export function publicServiceFile(app: App, version: ServiceFileVersion) {
    return {
        id: version.id,
        appName: app.name,
        version: version.version,
        format: version.format,
        content: version.content,
        committedSha: version.committedSha,
        committedAt: version.committedAt,
        createdAt: version.createdAt
    };
}
