import type { Knex } from 'knex';

import { createKnex } from '../lib/db/knex';
import { migrate } from '../lib/db/migrate';
import { normalizeEmail } from '../lib/models/user';
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

type Command = (knex: Knex, userId: string) => Promise<string>;

const commands: Record<string, Command> = {
    'admin grant': async (knex, userId) => {
        await knex('users').where({ id: userId }).whereNull('admin_since').update({ admin_since: nowIso(), updated_at: nowIso() });
        return 'is a platform admin';
    },
    'admin revoke': async (knex, userId) => {
        await knex('users').where({ id: userId }).update({ admin_since: null, updated_at: nowIso() });
        return 'is no longer a platform admin';
    },
    'user disable': async (knex, userId) => {
        await knex.transaction(async (trx) => {
            await trx('users').where({ id: userId }).whereNull('disabled_at').update({ disabled_at: nowIso(), updated_at: nowIso() });
            await trx('sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: nowIso(), revoked_reason: 'user_disabled' });
        });
        return 'is disabled: their sessions and keys are refused from the next request on';
    },
    'user enable': async (knex, userId) => {
        await knex('users').where({ id: userId }).update({ disabled_at: null, updated_at: nowIso() });
        return 'is enabled';
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

        out(`${user.email} ${await command(knex, user.id)}.`);
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
