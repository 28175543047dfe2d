import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { decryptSecret } from '../../../lib/crypto';
import { GitHubProvider } from '../../../lib/git/github';
import { GitProviderError, type GitProvider } from '../../../lib/git/provider';
import { OutsideClient, OutsideServiceError } from '../../../lib/outside/http-client';
import type { App } from '../models/app';
import { GitConnection } from '../models/service-file';

// The Git provider for an app: its repository's host, through the project's connection to that host.
export interface GitAccessOptions {
    knex: Knex;
    sealKey: Buffer;
    githubApiUrl: string;
    allowlist: readonly string[];
}

export interface AppRepository {
    provider: GitProvider;
    repo: string;
    branch: string;
}

const names = { github: 'GitHub', gitlab: 'GitLab', bitbucket: 'Bitbucket' } as const;

export class GitAccess {
    private readonly client: OutsideClient;

    constructor(private readonly options: GitAccessOptions) {
        this.client = new OutsideClient({ service: 'github', allowlist: options.allowlist });
    }

    async forApp(app: App): Promise<AppRepository> {
        if (!app.repoProvider || !app.repoName || !app.repoBranch) {
            throw Boom.conflict(`The app ${app.name} has no repository: set one with PATCH /v1/apps/${app.name} {"repository": {...}}`);
        }

        const connection = await GitConnection.query(this.options.knex).findOne({ project_id: app.projectId, provider: app.repoProvider });
        if (!connection) {
            throw Boom.conflict(`The project has no ${names[app.repoProvider]} connection: connect ${names[app.repoProvider]} to the project first`);
        }

        if (app.repoProvider !== 'github') {
            throw Boom.conflict(`${names[app.repoProvider]} repositories are not supported by this version; GitHub is`);
        }

        const token = decryptSecret(connection.token, this.options.sealKey);
        return { provider: new GitHubProvider({ baseUrl: this.options.githubApiUrl, token, client: this.client }), repo: app.repoName, branch: app.repoBranch };
    }
}

/** What a provider's refusal means to the caller of the API. */
export function providerFailure(err: unknown): unknown {
    if (err instanceof GitProviderError) {
        const host = names[err.provider];
        switch (err.code) {
            case 'not_found': return Boom.notFound(`${host} has no such repository or branch, or the connection cannot see it`);
            case 'unauthorized':
            case 'forbidden': return Boom.conflict(`${host} refused the project's connection: reconnect it`);
            case 'rate_limited': return Boom.serverUnavailable(`${host}'s rate limit is exhausted; try again later`);
            case 'invalid':
            case 'conflict': return Boom.conflict(`${host} refused the change: ${err.message.replace(/^\w+: /, '')}`);
            default: return Boom.badGateway(`${host} did not answer properly`);
        }
    }

    if (err instanceof OutsideServiceError) {
        return Boom.badGateway(err.code === 'refused_destination' ? 'The Git host\'s address is not allowed by this deployment' : 'The Git host could not be reached');
    }

    return err;
}
