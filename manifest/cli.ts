import type { Knex } from 'knex';

import { createKnex } from '../lib/db/knex';
import { migrate } from '../lib/db/migrate';
import { normalizeEmail } from '../lib/models/user';
import { recordSecurityEvent, type SecurityEventType } from '../lib/security-events';
import { nowIso } from '../lib/time';
import { loadConfig, type Config } from './config';

// Operator commands that the API deliberately cannot perform: platform admins and disabled accounts.
//   npm run cli -- admin grant <email> | admin revoke <email> | user disable <email> | user enable <email>
export const USAGE = `Usage: npm run cli -- <command> <email>

Commands:
  admin grant <email>     make the user a platform admin
  admin revoke <email>    take platform admin away
  user disable <email>    refuse the user's sessions, API keys and OAuth tokens from the next request on
  user enable <email>     let a disabled user sign in again (their keys work again; old sessions stay ended)

The database is the one the server uses: DATABASE_URL, or the SQLite file in DATA_DIR (default ./data).`;

type Command = (trx: Knex.Transaction, userId: string) => Promise<{ said: string; event: SecurityEventType | null; data?: Record<string, number> }>;

// Each command changes the account and records the security event in one transaction; a command that changes
// nothing (granting admin to an admin) records nothing.
const commands: Record<string, Command> = {
    'admin grant': async (trx, userId) => {
        const changed = await trx('users').where({ id: userId }).whereNull('admin_since').update({ admin_since: nowIso(), updated_at: nowIso() });
        return { said: 'is a platform admin', event: changed ? 'user.admin_granted' : null };
    },
    'admin revoke': async (trx, userId) => {
        const changed = await trx('users').where({ id: userId }).whereNotNull('admin_since').update({ admin_since: null, updated_at: nowIso() });
        return { said: 'is no longer a platform admin', event: changed ? 'user.admin_revoked' : null };
    },
    'user disable': async (trx, userId) => {
        const changed = await trx('users').where({ id: userId }).whereNull('disabled_at').update({ disabled_at: nowIso(), updated_at: nowIso() });
        const sessionsEnded = await trx('sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: nowIso(), revoked_reason: 'user_disabled' });
        return { said: 'is disabled: their sessions and keys are refused from the next request on', event: changed ? 'user.disabled' : null, data: { sessionsEnded } };
    },
    'user enable': async (trx, userId) => {
        const changed = await trx('users').where({ id: userId }).whereNotNull('disabled_at').update({ disabled_at: null, updated_at: nowIso() });
        return { said: 'is enabled', event: changed ? 'user.enabled' : null };
    }
};

export async function runCli(argv: readonly string[], config: Config, out: (line: string) => void): Promise<number> {
    const [group, action, email, ...rest] = argv;
    const command = commands[`${group} ${action}`];
    if (!command || !email || rest.length) {
        out(USAGE);
        return 2;
    }

    const knex = createKnex(config.database);
    try {
        await migrate(knex);
        const user = await knex('users').where({ email: normalizeEmail(email) }).first();
        if (!user) {
            out(`No user with the email ${email}.`);
            return 1;
        }

        const outcome = await knex.transaction(async (trx) => {
            const result = await command(trx, user.id);
            if (result.event) {
                await recordSecurityEvent(trx, { type: result.event, userId: user.id, actor: 'cli', ...(result.data ? { data: result.data } : {}) });
            }

            return result;
        });
        out(`${user.email} ${outcome.said}.`);
        return 0;
    }
    finally {
        await knex.destroy();
    }
}

if (require.main === module) {
    runCli(process.argv.slice(2), loadConfig(process.env), (line) => console.log(line))
        .then((code) => process.exit(code))
        .catch((err: Error) => {
            console.error(err.message);
            process.exit(1);
        });
}
