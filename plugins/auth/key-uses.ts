import type { Knex } from 'knex';

import { publicPrefix } from '../../lib/api-key-token';
import type { Outbox } from '../../lib/notifications/outbox';
import { recordSecurityEvent, recordSecurityEvents, type SecurityEvent } from '../../lib/security-events';

// What a key's use leaves behind, written after the response path so that no request waits for it
// (toolcheck.md: a write per request costs a quarter of the throughput): lastUsedAt with the address of that use (at
// most once a minute per key), the day each scope was last exercised (once a day per scope), the addresses a key has
// been used from (once per new address, with a message when an established key appears somewhere new), and the
// security trail's events of uses that must be seen: an old token used during a roll's overlap, and a refusal by the
// address allow-list. Every column the credential check reads costs every request, so what only these writes need
// (the key's name, the days of its scopes, its addresses) is read by them, after the response; what this process
// already wrote is remembered in memory so that it is not written again. Nothing here says whether a key is valid.

/** The columns of a key's row this needs, as the credential check read them. */
export interface UsedKey {
    id: string;
    user_id: string;
    last_used_at: string | null;
    previous_expires_at: string | null;
}

export interface KeyUsesOptions {
    knex: Knex;
    outbox: () => Outbox | null;                                // the notifications plugin's, when it is mounted
    onError: (err: unknown) => void;
}

const TOUCH_INTERVAL_MS = 60_000;
const ADDRESS_MESSAGE_INTERVAL_MS = 24 * 3600_000;              // at most one "new address" message per key a day
const MEMORY = 20_000;                                          // entries each set keeps before it starts again

const DAY_MS = 24 * 3600_000;
const describe = (name: string, prefix: string) => ({ name, prefix: publicPrefix(prefix) });

function remember(set: Set<string>, entry: string): void {
    if (set.size >= MEMORY) {
        set.clear();
    }

    set.add(entry);
}

export class KeyUses {
    private readonly touching = new Map<string, Promise<unknown>>();    // a lastUsedAt write in flight, by key or grant id
    private readonly landed = new Map<string, number>();        // the `writes` count when its last write landed, by id
    private writes = 0;                                         // lastUsedAt writes landed: a read notes it before it starts
    private readonly work = new Set<Promise<unknown>>();
    private readonly scopesNoted = new Map<string, Map<string, string>>();     // key -> scope -> the day written by this process
    private readonly addressesNoted = new Map<string, Set<string>>();          // key -> the addresses recorded by this process
    private readonly overlapsNoted = new Set<string>();         // `<key> <overlap end>` whose owner was told
    private noted = 0;                                          // keys in the two maps above
    private today = { day: '', until: 0 };
    private events: Array<{ event: SecurityEvent; at: string; prefix: string }> = [];

    constructor(private readonly options: KeyUsesOptions) { }

    /** Noted before a credential's row is read, and handed back to used() with that row. */
    get epoch(): number {
        return this.writes;
    }

    /** A use the credential check accepted, of a row read when epoch was `readAt`: `scope` is the route's, when the key holds it. */
    used(table: 'api_keys' | 'oauth_grants', row: { id: string; last_used_at: string | null }, now: number, readAt: number, key?: { row: UsedKey; prefix: string; ip: string | null; scope: string | null }): void {
        this.touch(table, row, now, readAt, key?.ip ?? null);
        if (!key) {
            return;
        }

        const { id } = key.row;
        const scope = key.scope;
        if (scope) {
            const today = this.day(now);
            const scopes = this.scopesNoted.get(id) ?? this.entry(this.scopesNoted, id, new Map<string, string>());
            if (scopes.get(scope) !== today) {
                scopes.set(scope, today);
                this.defer(() => this.noteScope(id, scope, today), () => scopes.delete(scope));
            }
        }

        const ip = key.ip;
        if (ip) {
            const addresses = this.addressesNoted.get(id) ?? this.entry(this.addressesNoted, id, new Set<string>());
            if (!addresses.has(ip)) {
                addresses.add(ip);
                this.defer(() => this.noteAddress(key.row, key.prefix, ip, now), () => addresses.delete(ip));
            }
        }
    }

    // The maps start again when they hold too many keys: at worst a write this process made is made once more.
    private entry<T>(map: Map<string, T>, id: string, value: T): T {
        if (++this.noted > MEMORY) {
            this.scopesNoted.clear();
            this.addressesNoted.clear();
            this.noted = 1;
        }

        map.set(id, value);
        return value;
    }

    private day(now: number): string {
        if (now >= this.today.until || now < this.today.until - DAY_MS) {
            const start = Math.floor(now / DAY_MS) * DAY_MS;
            this.today = { day: new Date(start).toISOString().slice(0, 10), until: start + DAY_MS };
        }

        return this.today.day;
    }

    /** The token a roll replaced, used inside its overlap: every use goes to the trail, and the owner is told once. */
    previousSecretUsed(row: UsedKey, prefix: string, ip: string | null, now: number): void {
        this.event({ type: 'api_key.previous_secret_used', userId: row.user_id, actor: row.user_id, credentialId: row.id, ip, data: { overlapEndsAt: row.previous_expires_at } }, prefix, now);
        const noted = `${row.id} ${row.previous_expires_at}`;
        if (!this.overlapsNoted.has(noted)) {
            remember(this.overlapsNoted, noted);
            this.defer(() => this.warnPreviousSecret(row, prefix, ip, now), () => this.overlapsNoted.delete(noted));
        }
    }

    /** A request the key's address allow-list refused. */
    refused(row: UsedKey, prefix: string, ip: string | null, now: number): void {
        this.event({ type: 'api_key.address_refused', userId: row.user_id, actor: row.user_id, credentialId: row.id, ip }, prefix, now);
    }

    /** Waits for every deferred write, so a stopping server loses none. */
    async drain(): Promise<void> {
        while (this.work.size || this.touching.size || this.events.length) {
            if (this.events.length && !this.work.size) {
                this.flush();
            }

            await Promise.all([...this.work, ...this.touching.values()]);
        }
    }

    // lastUsedAt (and the address of that use) at most once a minute per key or grant. Until the write lands, reads
    // still see the old value: the uses meanwhile join the write in flight instead of each queueing one of their own.
    private touch(table: 'api_keys' | 'oauth_grants', row: { id: string; last_used_at: string | null }, now: number, readAt: number, ip: string | null): void {
        const landed = this.landed.get(row.id);
        if (this.touching.has(row.id) || (landed !== undefined && landed > readAt) || (row.last_used_at && Date.parse(row.last_used_at) > now - TOUCH_INTERVAL_MS)) {
            return;
        }

        const staleBefore = new Date(now - TOUCH_INTERVAL_MS).toISOString();
        const write = new Promise<void>((resolve) => setImmediate(resolve))
            .then(() => this.options.knex(table)
                .where('id', row.id)
                .andWhere((q) => {
                    void q.whereNull('last_used_at').orWhere('last_used_at', '<=', staleBefore);
                })
                .update({ last_used_at: new Date(now).toISOString(), ...(table === 'api_keys' ? { last_used_ip: ip } : {}) }))
            .then(() => {
                // A use whose row was read before this write landed saw the old value: it must not write again.
                if (this.landed.size >= MEMORY) {
                    this.landed.clear();
                }

                this.landed.set(row.id, ++this.writes);
            })
            .catch(this.options.onError)
            .finally(() => this.touching.delete(row.id));

        this.touching.set(row.id, write);
    }

    private defer(task: () => Promise<unknown>, onFailure: () => void): void {
        const done = new Promise<void>((resolve) => setImmediate(resolve))
            .then(task)
            .catch((err: unknown) => {
                onFailure();
                this.options.onError(err);
            })
            .finally(() => this.work.delete(done));
        this.work.add(done);
    }

    private event(event: SecurityEvent, prefix: string, now: number): void {
        this.events.push({ event, at: new Date(now).toISOString(), prefix });
        if (this.events.length === 1) {
            this.defer(() => Promise.resolve(this.flush()), () => { });
        }
    }

    // Each event gets the key's name and public prefix, read here for the whole batch.
    private flush(): void {
        const batch = this.events;
        this.events = [];
        if (batch.length) {
            this.defer(async () => {
                const ids = [...new Set(batch.map(({ event }) => event.credentialId!))];
                const names = new Map((await this.options.knex('api_keys').whereIn('id', ids).select<Array<{ id: string; name: string }>>('id', 'name')).map((row) => [row.id, row.name]));
                await recordSecurityEvents(this.options.knex, batch.map(({ event, at, prefix }) => ({
                    event: { ...event, data: { ...describe(names.get(event.credentialId!) ?? '', prefix), ...event.data } }, at
                })));
            }, () => { });
        }
    }

    private async nameOf(db: Knex | Knex.Transaction, id: string): Promise<string> {
        return (await db('api_keys').where({ id }).first<{ name: string } | undefined>('name'))?.name ?? '';
    }

    // scope_uses is a small JSON object on the key's row, changed only if nobody changed it since it was read.
    private async noteScope(id: string, scope: string, today: string): Promise<void> {
        const { knex } = this.options;
        for (let attempt = 0; attempt < 3; ++attempt) {
            const row = await knex('api_keys').where({ id }).first<{ scope_uses: string | null } | undefined>('scope_uses');
            if (!row) {
                return;
            }

            const uses = row.scope_uses ? JSON.parse(row.scope_uses) as Record<string, string> : {};
            if (uses[scope] === today) {
                return;
            }

            uses[scope] = today;
            const query = knex('api_keys').where({ id });
            const changed = await (row.scope_uses === null ? query.whereNull('scope_uses') : query.where('scope_uses', row.scope_uses))
                .update({ scope_uses: JSON.stringify(uses) });
            if (changed) {
                return;
            }
        }
    }

    // The first address a key is used from is its baseline; each later one is a `api_key.new_address` event, with a
    // message to the owner at most once a day per key.
    private async noteAddress(row: UsedKey, prefix: string, ip: string, now: number): Promise<void> {
        const at = new Date(now).toISOString();
        await this.options.knex.transaction(async (trx) => {
            const inserted = await trx('api_key_addresses').insert({ key_id: row.id, ip, first_seen_at: at }).onConflict(['key_id', 'ip']).ignore().returning('ip') as unknown[];
            if (!inserted.length) {
                return;
            }

            const [others] = await trx('api_key_addresses').where({ key_id: row.id }).whereNot({ ip }).count({ n: '*' });
            if (!Number(others?.n)) {
                return;
            }

            const described = describe(await this.nameOf(trx, row.id), prefix);
            await recordSecurityEvent(trx, { type: 'api_key.new_address', userId: row.user_id, actor: row.user_id, credentialId: row.id, ip, data: described });
            const outbox = this.options.outbox();
            const quietSince = new Date(now - ADDRESS_MESSAGE_INTERVAL_MS).toISOString();
            const due = outbox && await trx('api_keys').where({ id: row.id })
                .andWhere((q) => {
                    void q.whereNull('address_notified_at').orWhere('address_notified_at', '<=', quietSince);
                })
                .update({ address_notified_at: at });
            if (due) {
                await outbox.send(trx, { type: 'security.api_key_new_address', userId: row.user_id, data: { ...described, ip, usedAt: at } });
            }
        });
    }

    private async warnPreviousSecret(row: UsedKey, prefix: string, ip: string | null, now: number): Promise<void> {
        const outbox = this.options.outbox();
        if (!outbox) {
            return;
        }

        await this.options.knex.transaction(async (trx) => {
            const first = await trx('api_keys').where({ id: row.id, previous_expires_at: row.previous_expires_at }).whereNull('previous_notified_at')
                .update({ previous_notified_at: new Date(now).toISOString() });
            if (first) {
                await outbox.send(trx, {
                    type: 'security.api_key_previous_secret_used', userId: row.user_id,
                    data: { ...describe(await this.nameOf(trx, row.id), prefix), ip: ip ?? 'an unknown address', usedAt: new Date(now).toISOString(), overlapEndsAt: row.previous_expires_at! }
                });
            }
        });
    }
}
