import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { randomBase62 } from '../base62';
import { sha256Hex } from '../crypto';
import { newId } from '../ids';
import { roleAtLeast, type Role } from '../roles';
import { isoIn, nowIso } from '../time';
import { providerFailure, throughProvider, type GitAccess } from './access';
import { GitConnectState, type GitConnection } from './connection';
import { OAuthGrantError } from './oauth';
import { PROVIDER_LABELS, type GitProviderName } from './provider';

// Connecting a project to a Git host (api-contract.md section 11). `start` answers the host's authorization address
// with a state of 190 random bits, bound to the session, the project and the host, kept (as its SHA-256) for ten
// minutes. The host sends the browser back to the dashboard's callback page, which completes through `complete`:
// the state is spent in one conditional UPDATE, so a replayed state, another session's, another host's or an
// expired one is refused with 400 and nothing is stored; then the code is exchanged, the account read, and the
// connection stored sealed. An earlier connection of the project to the same host is replaced and its token revoked.
export const STATE_TTL_MS = 10 * 60_000;
export const STATE_PATTERN = /^[0-9A-Za-z]{32}$/;

export interface ConnectFlowOptions {
    knex: Knex;
    access: GitAccess;
    publicUrl: string;                                          // the dashboard's origin: the host sends the browser back there
}

export interface Caller {
    userId: string;
    sessionId: string;
}

export class ConnectFlow {
    constructor(private readonly options: ConnectFlowOptions) { }

    /** Where the host sends the browser back: the dashboard page that completes the flow. */
    redirectUri(provider: GitProviderName): string {
        return `${this.options.publicUrl}/dashboard/git/${provider}/callback`;
    }

    async start(provider: GitProviderName, projectId: string, caller: Caller) {
        const oauth = this.oauth(provider);
        const state = randomBase62(32);
        const now = nowIso();
        const expiresAt = isoIn(STATE_TTL_MS);
        await this.options.knex.transaction(async (trx) => {
            await trx('git_connect_states').where('expires_at', '<', now).delete();
            await GitConnectState.query(trx).insert({
                id: newId('gcs'), stateHash: sha256Hex(state), provider, projectId, userId: caller.userId, sessionId: caller.sessionId,
                expiresAt, usedAt: null, createdAt: now
            });
        });
        return { provider, projectId, authorizeUrl: oauth.authorizeUrl(state, this.redirectUri(provider)), redirectUri: this.redirectUri(provider), state, expiresAt };
    }

    async complete(provider: GitProviderName, input: { code: string; state: string }, caller: Caller): Promise<GitConnection> {
        const host = PROVIDER_LABELS[provider];
        const oauth = this.oauth(provider);
        const flow = await this.spend(provider, input.state, caller);
        const membership = await this.options.knex('memberships').where({ project_id: flow.projectId, user_id: caller.userId }).first<{ role: Role } | undefined>('role');
        if (!membership || !roleAtLeast(membership.role, 'admin')) {
            throw Boom.forbidden('Connecting a Git host requires the admin role or higher in the project');
        }

        let tokens;
        try {
            tokens = await oauth.exchange(input.code, this.redirectUri(provider));
        }
        catch (err) {
            if (err instanceof OAuthGrantError) {
                throw Boom.badRequest(`${host} refused the authorization code (${err.error}): start again with GET /v1/${provider}/connect?projectId=${flow.projectId}`);
            }

            throw providerFailure(err);
        }

        const access = this.options.access;
        const account = await throughProvider(() => access.host(provider).provider(tokens.accessToken).currentUser());
        const { connection, replaced } = await access.store({ projectId: flow.projectId, provider, account, tokens, userId: caller.userId });
        if (replaced && replaced !== tokens.accessToken) {
            await access.revoke(provider, replaced);
        }

        return connection;
    }

    /** Spends the state: only its own session, for its host, once, before it expires. */
    private async spend(provider: GitProviderName, state: string, caller: Caller): Promise<GitConnectState> {
        const host = PROVIDER_LABELS[provider];
        const refused = Boom.badRequest(`The state is not valid: it was used already, has expired, or was not issued to this session for ${host}. Start again with GET /v1/${provider}/connect?projectId=<project>`);
        if (!STATE_PATTERN.test(state)) {
            throw refused;
        }

        const stateHash = sha256Hex(state);
        const now = nowIso();
        const spent = await this.options.knex('git_connect_states')
            .where({ state_hash: stateHash, provider, user_id: caller.userId, session_id: caller.sessionId })
            .whereNull('used_at').where('expires_at', '>', now)
            .update({ used_at: now });
        if (!spent) {
            throw refused;
        }

        return (await GitConnectState.query(this.options.knex).findOne({ state_hash: stateHash }))!;
    }

    private oauth(provider: GitProviderName) {
        const host = this.options.access.host(provider);
        if (!host.oauth) {
            throw Boom.conflict(`${host.label} is not set up on this server: its operator sets ${host.settings} (docs/git.md)`);
        }

        return host.oauth;
    }
}
