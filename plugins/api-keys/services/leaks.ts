import type { Knex } from 'knex';

import { parseApiKey, publicPrefix } from '../../../lib/api-key-token';
import { digestsEqual, sha256, sha256Hex } from '../../../lib/crypto';
import type { Outbox } from '../../../lib/notifications/outbox';
import { recordSecurityEvent } from '../../../lib/security-events';
import { toIso } from '../../../lib/time';

// Leak reports (GitHub's secret scanning partner program): each reported token is judged by its secret, never by its
// prefix (prefixes are public and the checksum is published, so anyone can forge a well-formed token with a real
// prefix). Only a secret whose SHA-256 matches the stored one, compared in constant time, counts: the key's current
// secret revokes the key; the secret a roll replaced ends the overlap at once. Anything else is a false positive and
// changes nothing. The answer is the program's feedback shape, with the token's SHA-256 rather than the token.
export interface ReportedToken {
    token: string;
    type: string;
    url: string;
    source?: string;
}

export interface LeakLabel {
    token_hash: string;
    token_type: string;
    label: 'true_positive' | 'false_positive';
}

interface KeyRow {
    id: string;
    user_id: string;
    name: string;
    prefix: string;
    secret_hash: string;
    previous_secret_hash: string | null;
    previous_expires_at: string | null;
    revoked_at: string | null;
}

const DUMMY_HASH = Buffer.alloc(32);
const REPORTER = 'GitHub secret scanning';

export class LeakReports {
    constructor(private readonly knex: Knex, private readonly outbox: Outbox, private readonly clock: () => number) { }

    async report(tokens: readonly ReportedToken[]): Promise<LeakLabel[]> {
        const labels: LeakLabel[] = [];
        for (const reported of tokens) {
            const real = await this.judge(reported);
            labels.push({ token_hash: sha256Hex(reported.token), token_type: reported.type, label: real ? 'true_positive' : 'false_positive' });
        }

        return labels;
    }

    private async judge(reported: ReportedToken): Promise<boolean> {
        const parsed = parseApiKey(reported.token.trim());
        if (!parsed) {
            return false;
        }

        const row = await this.knex<KeyRow>('api_keys').where({ prefix: parsed.prefix })
            .first<KeyRow | undefined>('id', 'user_id', 'name', 'prefix', 'secret_hash', 'previous_secret_hash', 'previous_expires_at', 'revoked_at');
        const presented = sha256(parsed.secret);
        const current = digestsEqual(presented, row ? Buffer.from(row.secret_hash, 'hex') : DUMMY_HASH);
        const previous = !current && !!row?.previous_secret_hash && digestsEqual(presented, Buffer.from(row.previous_secret_hash, 'hex'));
        if (!row || (!current && !previous)) {
            return false;
        }

        if (!row.revoked_at) {
            await (current ? this.revoke(row, reported) : this.endOverlap(row, reported));
        }

        return true;
    }

    private async revoke(row: KeyRow, reported: ReportedToken): Promise<void> {
        const at = toIso(this.clock());
        await this.knex.transaction(async (trx) => {
            const revoked = await trx('api_keys').where({ id: row.id, secret_hash: row.secret_hash }).whereNull('revoked_at')
                .update({ revoked_at: at, revoked_reason: 'leaked', leaked_at: at, leak_url: reported.url.slice(0, 2048), leak_source: reported.source?.slice(0, 64) ?? null });
            if (revoked) {
                await this.tell(trx, row, reported, at, 'current', `the key was revoked at ${at}: it is refused from its next request on.`);
            }
        });
    }

    private async endOverlap(row: KeyRow, reported: ReportedToken): Promise<void> {
        const at = toIso(this.clock());
        if (!row.previous_expires_at || row.previous_expires_at <= at) {
            return;                                             // that token stopped working already
        }

        await this.knex.transaction(async (trx) => {
            const ended = await trx('api_keys').where({ id: row.id, previous_secret_hash: row.previous_secret_hash! }).whereNull('revoked_at')
                .update({ previous_secret_hash: null, previous_expires_at: null });
            if (ended) {
                await this.tell(trx, row, reported, at, 'previous', `the token it had before its last roll was stopped at ${at}. Its current token keeps working.`);
            }
        });
    }

    private async tell(trx: Knex.Transaction, row: KeyRow, reported: ReportedToken, at: string, secret: 'current' | 'previous', action: string): Promise<void> {
        const described = { name: row.name, prefix: publicPrefix(row.prefix) };
        await recordSecurityEvent(trx, {
            type: 'api_key.leaked', userId: row.user_id, actor: 'secret-scanning', credentialId: row.id,
            data: { ...described, url: reported.url, source: reported.source ?? null, type: reported.type, token: secret }
        });
        await this.outbox.send(trx, {
            type: 'security.api_key_leaked', userId: row.user_id,
            data: { ...described, reporter: REPORTER, action, url: reported.url || 'not given', reportedAt: at }
        });
    }
}
