import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { decryptSecret } from '../crypto';
import { OutsideClient, OutsideServiceError } from '../outside/http-client';
import { GitConnection } from './connection';
import { GitHubProvider } from './github';
import { GitProviderError, type GitProvider, type GitProviderName } from './provider';

// The Git provider behind a resource's repository: the repository's host, through its project's connection to that
// host. Every runtime kind (apps, sites, workers, cron jobs) reaches its commits and pull requests through here.
export interface GitAccessOptions {
    knex: Knex;
    sealKey: Buffer;
    githubApiUrl: string;
    allowlist: readonly string[];
}

export interface Repository {
    provider: GitProvider;
    repo: string;
    branch: string;
}

export interface RepositorySettings {
    name: string;
    projectId: string;
    repoProvider: GitProviderName | null;
    repoName: string | null;
    repoBranch: string | null;
}

export const PROVIDER_NAMES: Readonly<Record<GitProviderName, string>> = { github: 'GitHub', gitlab: 'GitLab', bitbucket: 'Bitbucket' };

export class GitAccess {
    private readonly client: OutsideClient;

    constructor(private readonly options: GitAccessOptions) {
        this.client = new OutsideClient({ service: 'github', allowlist: options.allowlist });
    }

    /** The repository a resource builds from, with a provider client authorised by its project's connection. */
    async repositoryOf(resource: RepositorySettings, noun: string, path: string): Promise<Repository> {
        if (!resource.repoProvider || !resource.repoName || !resource.repoBranch) {
            throw Boom.conflict(`The ${noun} ${resource.name} has no repository: set one with PATCH ${path} {"repository": {...}}`);
        }

        const host = PROVIDER_NAMES[resource.repoProvider];
        const connection = await GitConnection.query(this.options.knex).findOne({ project_id: resource.projectId, provider: resource.repoProvider });
        if (!connection) {
            throw Boom.conflict(`The project has no ${host} connection: connect ${host} to the project first`);
        }

        if (resource.repoProvider !== 'github') {
            throw Boom.conflict(`${host} repositories are not supported by this version; GitHub is`);
        }

        const token = decryptSecret(connection.token, this.options.sealKey);
        return { provider: new GitHubProvider({ baseUrl: this.options.githubApiUrl, token, client: this.client }), repo: resource.repoName, branch: resource.repoBranch };
    }
}

/** What a provider's refusal means to the caller of the API. */
export function providerFailure(err: unknown): unknown {
    if (err instanceof GitProviderError) {
        const host = PROVIDER_NAMES[err.provider];
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

/** Runs a provider call, turning its refusals into API answers. */
export async function throughProvider<T>(call: () => Promise<T>): Promise<T> {
    try {
        return await call();
    }
    catch (err) {
        throw providerFailure(err);
    }
}
