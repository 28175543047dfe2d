import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { hashPassword, verifyPassword } from '../../../lib/crypto';
import { isUniqueViolation } from '../../../lib/db/errors';
import { newId } from '../../../lib/ids';
import { Project } from '../../../lib/models/project';
import { normalizeEmail, User } from '../../../lib/models/user';
import { recordSecurityEvent, type RequestOrigin } from '../../../lib/security-events';
import { nowIso } from '../../../lib/time';
import type { SessionPair, SessionService } from './sessions';

export interface AccountsSettings {
    passwordCost: number;
    signupEnabled: boolean;
}

export class AccountsService {
    constructor(private readonly knex: Knex, private readonly sessions: SessionService, private readonly settings: AccountsSettings) { }

    /** A user, their personal project with them as owner, and a first session: all or nothing. */
    async register(input: { email: string; password: string; name?: string | undefined }, origin: RequestOrigin): Promise<{ user: User } & SessionPair> {
        if (!this.settings.signupEnabled) {
            throw Boom.forbidden('Sign-up is closed on this deployment');
        }

        const email = normalizeEmail(input.email);
        const passwordHash = await hashPassword(input.password, { cost: this.settings.passwordCost });
        try {
            return await this.knex.transaction(async (trx) => {
                const now = nowIso();
                const user = await User.query(trx).insertAndFetch({
                    id: newId('usr'), email, name: input.name ?? email.split('@')[0], passwordHash, adminSince: null, disabledAt: null, createdAt: now, updatedAt: now
                });
                await Project.createWithOwner(trx, { name: 'Personal', kind: 'personal', ownerId: user.id });
                await recordSecurityEvent(trx, { type: 'user.registered', userId: user.id, actor: user.id, ip: origin.ip });
                return { user, ...await this.sessions.open(trx, user.id, origin, 'register') };
            });
        }
        catch (err) {
            if (isUniqueViolation(err)) {
                throw Boom.conflict('An account with this email already exists');
            }

            throw err;
        }
    }

    async login(input: { email: string; password: string }, origin: RequestOrigin): Promise<{ user: User } & SessionPair> {
        const user = await User.query(this.knex).findOne({ email: normalizeEmail(input.email) });
        const matches = await verifyPassword(input.password, user?.passwordHash ?? null);
        if (user && (!matches || user.disabledAt)) {
            // Failed sign-ins are recorded for existing accounts only: the trail belongs to an account.
            const reason = matches ? 'account_disabled' : 'wrong_password';
            await recordSecurityEvent(this.knex, { type: 'session.sign_in_failed', userId: user.id, actor: user.id, ip: origin.ip, data: { reason } });
        }

        if (!user || !matches) {
            throw Boom.unauthorized('Invalid email or password', 'Bearer');
        }

        if (user.disabledAt) {
            throw Boom.unauthorized('Account is disabled', 'Bearer');
        }

        return this.knex.transaction(async (trx) => ({ user, ...await this.sessions.open(trx, user.id, origin, 'password') }));
    }

    async get(userId: string): Promise<User> {
        const user = await User.query(this.knex).findById(userId);
        if (!user) {
            throw Boom.notFound('User not found');
        }

        return user;
    }

    /** Name and password changes; a new password ends every other session of the user. */
    async update(userId: string, sessionId: string, input: { name?: string; password?: string; currentPassword?: string }, origin: RequestOrigin): Promise<User> {
        const user = await this.get(userId);
        const patch: Partial<User> = { updatedAt: nowIso() };
        if (input.name !== undefined) {
            patch.name = input.name;
        }

        if (input.password !== undefined) {
            if (!await verifyPassword(input.currentPassword ?? '', user.passwordHash)) {
                throw Boom.badRequest('"currentPassword" is incorrect');
            }

            patch.passwordHash = await hashPassword(input.password, { cost: this.settings.passwordCost });
        }

        return this.knex.transaction(async (trx) => {
            const updated = await User.query(trx).patchAndFetchById(userId, patch);
            if (input.password !== undefined) {
                await recordSecurityEvent(trx, { type: 'user.password_changed', userId, actor: userId, credentialId: sessionId, ip: origin.ip });
                await this.sessions.revokeAllOf(trx, userId, 'password_changed', origin, sessionId);
            }

            return updated;
        });
    }
}
