import * as Crypto from 'node:crypto';

import type { Knex } from 'knex';

import { randomBase62 } from '../../../lib/base62';
import { digestsEqual, sha256Hex } from '../../../lib/crypto';
import { newId } from '../../../lib/ids';
import { OAUTH_ACCESS_TOKEN_TTL_SECONDS, signAccessToken, type AccessTokenVerifier, type SigningKey } from '../../../lib/oauth/access-token';
import { parseScopeParameter } from '../../../lib/oauth/scopes';
import type { SigningKeys } from '../../../lib/oauth/signing-keys';
import type { Scope } from '../../../lib/scopes';
import type { RequestOrigin } from '../../../lib/security-events';
import { isoIn, nowIso } from '../../../lib/time';
import { Authorization } from '../models/authorization';
import { Grant, GrantRefreshToken } from '../models/grant';
import { OAuthError, required, type Params } from '../protocol';
import type { OAuthClient } from './clients';
import type { GrantsService } from './grants';

// The token endpoint's two grants and the revocation endpoint. A code is redeemed once, by its client, with its
// redirect URI and PKCE verifier; presented again, it revokes what it issued. Refresh tokens are opaque, stored as
// digests and rotated on every use; a rotated one presented again revokes the grant. Every failure is decided and
// recorded in one transaction, and the error is raised after it commits.
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 3600 * 1000;
const REFRESH_PREFIX = 'svor_';
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export interface TokenResponse {
    access_token: string;
    token_type: 'Bearer';
    expires_in: number;
    refresh_token: string;
    scope: string;
}

export interface TokenSettings {
    issuer: string;
    audience: readonly string[];                                // the MCP resource and the API's base URL
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

export class TokensService {
    constructor(
        private readonly knex: Knex,
        private readonly keys: SigningKeys,
        private readonly grants: GrantsService,
        private readonly verifier: AccessTokenVerifier,
        private readonly settings: TokenSettings
    ) { }

    async exchangeCode(client: OAuthClient, params: Params, origin: RequestOrigin): Promise<TokenResponse> {
        const [code, redirectUri, verifier] = [required(params, 'code'), required(params, 'redirect_uri'), required(params, 'code_verifier')];
        if (!VERIFIER.test(verifier)) {
            throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_" and "~"');
        }

        const key = await this.keys.current();
        const outcome = await this.knex.transaction(async (trx): Promise<OAuthError | { grant: Grant; refreshToken: string }> => {
            const authorization = await Authorization.query(trx).findOne({ code_hash: sha256Hex(code) });
            if (!authorization?.userId || !authorization.codeExpiresAt) {
                return invalidGrant('The code is not valid');
            }

            const replayed = async () => {
                if (authorization.grantId) {
                    await this.grants.revoke(trx, authorization.grantId, 'code_replay', origin);
                }

                return invalidGrant('The code was already used; the tokens issued for it are revoked');
            };
            if (authorization.codeUsedAt) {
                return replayed();
            }

            if (authorization.codeExpiresAt <= nowIso() || authorization.clientId !== client.id) {
                return invalidGrant('The code is not valid');
            }

            if (authorization.redirectUri !== redirectUri) {
                return invalidGrant('redirect_uri differs from the one of the authorization request');
            }

            if (!digestsEqual(Buffer.from(sha256Base64url(verifier)), Buffer.from(authorization.codeChallenge))) {
                return invalidGrant('code_verifier does not match the code_challenge');
            }

            if (params.resource !== undefined && params.resource !== authorization.resource) {
                return new OAuthError('invalid_target', `The code was issued for ${authorization.resource}`);
            }

            if (await this.disabled(trx, authorization.userId)) {
                return invalidGrant('The account is disabled');
            }

            // One atomic claim: of two concurrent redemptions, one wins and the other is a replay.
            const claimed = await Authorization.query(trx).patch({ codeUsedAt: nowIso() }).where({ id: authorization.id }).whereNull('code_used_at');
            if (!claimed) {
                return replayed();
            }

            const grant = await this.grants.create(trx, authorization, authorization.userId, origin);
            await Authorization.query(trx).patch({ grantId: grant.id }).where({ id: authorization.id });
            return { grant, refreshToken: await this.newRefreshToken(trx, grant.id) };
        });

        if (outcome instanceof OAuthError) {
            throw outcome;
        }

        return this.response(key, outcome.grant, outcome.grant.scopes, outcome.refreshToken);
    }

    async refresh(client: OAuthClient, params: Params, origin: RequestOrigin): Promise<TokenResponse> {
        const presented = required(params, 'refresh_token');
        const asked = parseScopeParameter(params.scope);
        if ('refused' in asked) {
            throw new OAuthError('invalid_scope', `These scopes cannot be granted: ${asked.refused.join(' ').slice(0, 300)}`);
        }

        const key = await this.keys.current();
        const outcome = await this.knex.transaction(async (trx): Promise<OAuthError | { grant: Grant; scopes: Scope[]; refreshToken: string }> => {
            const token = presented.startsWith(REFRESH_PREFIX) ? await GrantRefreshToken.query(trx).findOne({ token_hash: sha256Hex(presented) }) : undefined;
            const grant = token && await Grant.query(trx).findById(token.grantId);
            if (!token || !grant || grant.revokedAt || grant.clientId !== client.id) {
                return invalidGrant('The refresh token is not valid');
            }

            const reused = async () => {
                await this.grants.revoke(trx, grant.id, 'refresh_reuse', origin);
                return invalidGrant('The refresh token was already used; the connection is revoked');
            };
            if (token.usedAt) {
                return reused();
            }

            if (token.expiresAt <= nowIso() || await this.disabled(trx, grant.userId)) {
                return invalidGrant('The refresh token is not valid');
            }

            if (params.resource !== undefined && params.resource !== grant.resource) {
                return new OAuthError('invalid_target', `The grant is for ${grant.resource}`);
            }

            const scopes = asked.scopes ?? grant.scopes;
            if (scopes.some((scope) => !grant.scopes.includes(scope))) {
                return new OAuthError('invalid_scope', 'A refresh may only narrow the granted scopes');
            }

            const claimed = await GrantRefreshToken.query(trx).patch({ usedAt: nowIso() }).where({ id: token.id }).whereNull('used_at');
            if (!claimed) {
                return reused();
            }

            return { grant, scopes, refreshToken: await this.newRefreshToken(trx, grant.id) };
        });

        if (outcome instanceof OAuthError) {
            throw outcome;
        }

        return this.response(key, outcome.grant, outcome.scopes, outcome.refreshToken);
    }

    /** RFC 7009: a refresh or access token of this client revokes its grant; anything else is quietly accepted. */
    async revoke(client: OAuthClient, token: string, origin: RequestOrigin): Promise<void> {
        let grantId: string | null = null;
        if (token.startsWith(REFRESH_PREFIX)) {
            grantId = (await GrantRefreshToken.query(this.knex).findOne({ token_hash: sha256Hex(token) }))?.grantId ?? null;
        }
        else {
            const claims = await this.verifier.verify(token);
            grantId = claims && claims.clientId === client.id ? claims.grantId : null;
        }

        if (grantId) {
            await this.knex.transaction(async (trx) => {
                const grant = await Grant.query(trx).findById(grantId);
                if (grant?.clientId === client.id) {
                    await this.grants.revoke(trx, grant.id, 'token_revoked', origin);
                }
            });
        }
    }

    // Spent tokens are kept for reuse detection until they would have expired anyway; then they go.
    private async newRefreshToken(trx: Knex.Transaction, grantId: string): Promise<string> {
        const token = REFRESH_PREFIX + randomBase62(43);
        await GrantRefreshToken.query(trx).delete().where({ grant_id: grantId }).where('expires_at', '<', nowIso());
        await GrantRefreshToken.query(trx).insert({
            id: newId('ort'), grantId, tokenHash: sha256Hex(token), createdAt: nowIso(), expiresAt: isoIn(REFRESH_TOKEN_TTL_MS), usedAt: null
        });
        return token;
    }

    private async disabled(trx: Knex.Transaction, userId: string): Promise<boolean> {
        const user = await trx<{ id: string; disabled_at: string | null }>('users').where({ id: userId }).first('disabled_at');
        return !user || !!user.disabled_at;
    }

    private async response(key: SigningKey, grant: Grant, scopes: readonly Scope[], refreshToken: string): Promise<TokenResponse> {
        const accessToken = await signAccessToken(key, { userId: grant.userId, clientId: grant.clientId, grantId: grant.id, scopes }, this.settings);
        return { access_token: accessToken, token_type: 'Bearer', expires_in: OAUTH_ACCESS_TOKEN_TTL_SECONDS, refresh_token: refreshToken, scope: scopes.join(' ') };
    }
}

function sha256Base64url(value: string): string {
    return Crypto.createHash('sha256').update(value).digest('base64url');
}
