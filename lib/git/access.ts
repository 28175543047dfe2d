import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { decryptSecret, encryptSecret } from '../crypto';
import { isUniqueViolation } from '../db/errors';
import { newId } from '../ids';
import { OutsideServiceError } from '../outside/http-client';
import { nowIso } from '../time';
import { GitConnection } from './connection';
import type { GitHost, GitHosts } from './hosts';
import { OAuthGrantError, type TokenSet } from './oauth';
import { GitProviderError, PROVIDER_LABELS, type GitProvider, type GitProviderName } from './provider';

// The Git provider behind a project's connection, with a token that is fresh: every runtime kind (apps, sites,
// workers, cron jobs) reaches its repository's commits, pull requests and files through here, the Git routes list
// accounts and repositories through here, and the process runtime clones with it (clone.ts). A token that expires
// within REFRESH_MARGIN_MS is refreshed first, where the host issued a refresh token; a host that refuses the token
// marks the connection `reconnect`, and every use answers 409 until it is connected again.
export const REFRESH_MARGIN_MS = 5 * 60_000;

export interface GitAccessOptions {
    knex: Knex;
    sealKey: Buffer;
    hosts: GitHosts;
    now?: () => number;
}

export interface Repository {
    provider: GitProvider;
    repo: string;
    branch: string;
}

export interface RepositorySettings {
    name: string;
    projectId: string;
    repoProvider: GitProviderName | 'git' | null;                // git: a repository by URL, cloned without a connection
    repoName: string | null;
    repoBranch: string | null;
}

export class GitAccess {
    private readonly refreshing = new Map<string, Promise<string>>();
    private readonly now: () => number;

    constructor(private readonly options: GitAccessOptions) {
        this.now = options.now ?? Date.now;
    }

    host(provider: GitProviderName): GitHost {
        return this.options.hosts[provider];
    }

    seal(secret: string): string {
        return encryptSecret(secret, this.options.sealKey);
    }

    async connections(projectId: string): Promise<GitConnection[]> {
        return await GitConnection.query(this.options.knex).where({ project_id: projectId }).orderBy('provider');
    }

    async connection(projectId: string, provider: GitProviderName): Promise<GitConnection | undefined> {
        return GitConnection.query(this.options.knex).findOne({ project_id: projectId, provider });
    }

    /** The project's connection to a host, or 409 saying how to make one (or to make it again). */
    async required(projectId: string, provider: GitProviderName): Promise<GitConnection> {
        const host = PROVIDER_LABELS[provider];
        const connection = await this.connection(projectId, provider);
        if (!connection) {
            throw Boom.conflict(`The project has no ${host} connection: connect ${host} to the project first`);
        }

        if (connection.status === 'reconnect') {
            throw Boom.conflict(reconnectMessage(provider));
        }

        return connection;
    }

    /** An adapter for the connection, with a fresh token; a refusal of the token marks the connection `reconnect`. */
    async providerFor(connection: GitConnection): Promise<GitProvider> {
        const token = await this.tokenFor(connection);
        return guarded(this.host(connection.provider).provider(token), () => this.markReconnect(connection));
    }

    /** The repository a resource builds from, with a provider client authorised by its project's connection. */
    async repositoryOf(resource: RepositorySettings, noun: string, path: string): Promise<Repository> {
        if (!resource.repoProvider || !resource.repoName || !resource.repoBranch) {
            throw Boom.conflict(`The ${noun} ${resource.name} has no repository: set one with PATCH ${path} {"repository": {...}}`);
        }

        if (resource.repoProvider === 'git') {
            throw Boom.conflict(`The ${noun} ${resource.name} builds from a Git URL (${resource.repoName}): this needs a repository of a connected Git host (GitHub, GitLab or Bitbucket)`);
        }

        const connection = await this.required(resource.projectId, resource.repoProvider);
        return { provider: await throughProvider(() => this.providerFor(connection)), repo: resource.repoName, branch: resource.repoBranch };
    }

    /** Records a connection made by the connect flow, replacing the project's earlier one to the same host (whose
     * token is answered, to be revoked). Two flows finishing at once: the second replaces the first. */
    async store(input: { projectId: string; provider: GitProviderName; account: { login: string; name: string | null }; tokens: TokenSet; userId: string }): Promise<{ connection: GitConnection; replaced: string | null }> {
        const attempt = () => this.options.knex.transaction(async (trx) => {
            const now = nowIso();
            const earlier = await GitConnection.query(trx).findOne({ project_id: input.projectId, provider: input.provider });
            const fields = {
                accountLogin: input.account.login, accountName: input.account.name,
                token: this.seal(input.tokens.accessToken), refreshToken: input.tokens.refreshToken ? this.seal(input.tokens.refreshToken) : null,
                expiresAt: input.tokens.expiresAt, scopes: input.tokens.scopes, status: 'connected' as const, createdBy: input.userId, updatedAt: now
            };
            const connection = earlier
                ? await GitConnection.query(trx).patchAndFetchById(earlier.id, { ...fields, generation: earlier.generation + 1, createdAt: now })
                : await GitConnection.query(trx).insertAndFetch({ id: newId('gcn'), projectId: input.projectId, provider: input.provider, generation: 0, createdAt: now, ...fields });
            return { connection, replaced: earlier ? decryptSecret(earlier.token, this.options.sealKey) : null };
        });

        try {
            return await attempt();
        }
        catch (err) {
            if (!isUniqueViolation(err)) {
                throw err;
            }

            return attempt();
        }
    }

    /** Deletes the connection and its tokens, then revokes the token at the host where the host allows it. */
    async disconnect(connection: GitConnection): Promise<'revoked' | 'unsupported' | 'failed'> {
        const token = decryptSecret(connection.token, this.options.sealKey);
        await GitConnection.query(this.options.knex).deleteById(connection.id);
        return this.revoke(connection.provider, token);
    }

    async revoke(provider: GitProviderName, token: string): Promise<'revoked' | 'unsupported' | 'failed'> {
        const host = this.host(provider);
        if (!host.oauth) {
            return 'unsupported';
        }

        try {
            return await host.revoke(token) ? 'revoked' : 'unsupported';
        }
        catch {
            return 'failed';
        }
    }

    /** The connection's access token, refreshed first when it expires within the margin and the host can refresh it. */
    async tokenFor(connection: GitConnection): Promise<string> {
        const token = decryptSecret(connection.token, this.options.sealKey);
        const oauth = this.host(connection.provider).oauth;
        const expiring = connection.expiresAt !== null && Date.parse(connection.expiresAt) - this.now() < REFRESH_MARGIN_MS;
        if (!expiring || !connection.refreshToken || !oauth) {
            return token;
        }

        // One refresh per connection and generation in this process: a host rotates the refresh token on use.
        const key = `${connection.id}:${connection.generation}`;
        let pending = this.refreshing.get(key);
        if (!pending) {
            pending = this.refresh(connection).finally(() => this.refreshing.delete(key));
            this.refreshing.set(key, pending);
        }

        return pending;
    }

    private async refresh(connection: GitConnection): Promise<string> {
        const { knex, sealKey } = this.options;
        let tokens: TokenSet;
        try {
            tokens = await this.host(connection.provider).oauth!.refresh(decryptSecret(connection.refreshToken!, sealKey));
        }
        catch (err) {
            // Another process may have refreshed with the same refresh token first: its result stands.
            const current = await GitConnection.query(knex).findById(connection.id);
            if (current && current.generation !== connection.generation) {
                return decryptSecret(current.token, sealKey);
            }

            if (err instanceof OAuthGrantError) {
                await this.markReconnect(connection);
                throw new GitProviderError(connection.provider, 'unauthorized', `${PROVIDER_LABELS[connection.provider]} refused to refresh the token`, 401);
            }

            throw err;
        }

        const updated = await GitConnection.query(knex).patch({
            token: this.seal(tokens.accessToken), refreshToken: tokens.refreshToken ? this.seal(tokens.refreshToken) : connection.refreshToken,
            expiresAt: tokens.expiresAt, scopes: tokens.scopes ?? connection.scopes, generation: connection.generation + 1, updatedAt: nowIso()
        }).where({ id: connection.id, generation: connection.generation });
        if (!updated) {
            const current = await GitConnection.query(knex).findById(connection.id);
            if (!current) {
                throw Boom.conflict(`The project's ${PROVIDER_LABELS[connection.provider]} connection was removed`);
            }

            return decryptSecret(current.token, sealKey);
        }

        return tokens.accessToken;
    }

    private async markReconnect(connection: GitConnection): Promise<void> {
        await GitConnection.query(this.options.knex).patch({ status: 'reconnect', updatedAt: nowIso() }).where({ id: connection.id, generation: connection.generation });
    }
}

/** Every method of an adapter, with a refusal of the token reported once to `onUnauthorized` before it is thrown. */
function guarded(provider: GitProvider, onUnauthorized: () => Promise<void>): GitProvider {
    return new Proxy(provider, {
        get(target, property, receiver) {
            const value: unknown = Reflect.get(target, property, receiver);
            if (typeof value !== 'function') {
                return value;
            }

            return async (...args: unknown[]) => {
                try {
                    return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
                }
                catch (err) {
                    if (err instanceof GitProviderError && err.code === 'unauthorized') {
                        await onUnauthorized();
                    }

                    throw err;
                }
            };
        }
    });
}

export function reconnectMessage(provider: GitProviderName): string {
    const host = PROVIDER_LABELS[provider];
    return `${host} refused the project's connection (the token was revoked or has expired): reconnect ${host} to the project with GET /v1/${provider}/connect?projectId=<project>`;
}

/** What a provider's refusal means to the caller of the API. */
export function providerFailure(err: unknown): unknown {
    if (err instanceof GitProviderError) {
        const host = PROVIDER_LABELS[err.provider];
        const said = err.message.replace(/^\w+: /, '');
        switch (err.code) {
            case 'not_found': return Boom.notFound(`${host} has no such repository or branch, or the connection cannot see it`);
            case 'unauthorized': return Boom.conflict(reconnectMessage(err.provider));
            case 'forbidden': return Boom.conflict(`${host} refused the project's connection access: ${said}`);
            case 'rate_limited': return Boom.serverUnavailable(`${host}'s rate limit is exhausted; try again later`);
            case 'invalid':
            case 'conflict': return Boom.conflict(`${host} refused the change: ${said}`);
            default: return Boom.badGateway(`${host} did not answer properly${err.status ? ` (${err.status})` : ''}; try again later`);
        }
    }

    if (err instanceof OutsideServiceError) {
        const host = (PROVIDER_LABELS as Record<string, string>)[err.service] ?? 'The Git host';
        return Boom.badGateway(err.code === 'refused_destination'
            ? `${host}'s address is not allowed by this deployment (OUTBOUND_ALLOWLIST)`
            : `${host} could not be reached; try again later`);
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
