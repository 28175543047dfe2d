import type { Knex } from 'knex';

import { explainToken } from '../lib/api-key-token';
import { Credit } from '../lib/billing/credit';
import { formatMoney } from '../lib/billing/money';
import { createKnex } from '../lib/db/knex';
import { migrate } from '../lib/db/migrate';
import { normalizeEmail, User } from '../lib/models/user';
import { Outbox } from '../lib/notifications/outbox';
import { SigningKeys } from '../lib/oauth/signing-keys';
import { DatabaseQueue } from '../lib/queue/database-queue';
import { recordSecurityEvent, type SecurityEventType } from '../lib/security-events';
import { nowIso } from '../lib/time';
import { loadConfig, type Config } from './config';

// Operator commands that the API deliberately cannot perform: platform admins, disabled accounts, the rotation of
// the OAuth signing key, and sending again the messages that could not be delivered.
//   npm run cli -- admin grant <email> | admin revoke <email> | user disable <email> | user enable <email> | oauth rotate-key
//   npm run cli -- notifications retry [<email>] | keys check <token> | campaign create <CODE> <amount> <currency> <from> <until>
export const USAGE = `Usage: npm run cli -- <command> [<email>]

Commands:
  admin grant <email>              make the user a platform admin
  admin revoke <email>             take platform admin away
  user disable <email>             refuse the user's sessions, API keys and OAuth tokens from the next request on
  user enable <email>              let a disabled user sign in again (their keys work again; old sessions stay ended)
  oauth rotate-key                 sign OAuth access tokens with a new key; the previous one stays published until its tokens expire
  notifications retry [<email>]    queue again every message recorded not_configured or failed (of one user, or all)
  campaign create <CODE> <amount> <currency> <from> <until>
                                   a promotional code granting <amount> minor units of credit (500 USD is 5.00),
                                   redeemable once per account from <from> until <until> (ISO 8601 dates or times)
  keys check <token>               say whether a text is a well-formed API key with a valid checksum, offline (no
                                   database, no configuration); "-" reads the token from standard input

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

// Commands about the deployment rather than one account.
type DeploymentCommand = (knex: Knex, config: Config) => Promise<string>;

const deploymentCommands: Record<string, DeploymentCommand> = {
    'oauth rotate-key': async (knex, config) => {
        const rotated = await new SigningKeys(knex, config.encryptionKey).rotate();
        const previous = rotated.retired.length ? ` The previous key (${rotated.retired.join(', ')}) stays in the JWKS until ${rotated.publishedUntil}.` : '';
        return `OAuth access tokens are now signed with key ${rotated.kid}.${previous}`;
    }
};

// `keys check`: the format and checksum of docs/secret-scanning.md, the detector a scanner runs. Never prints the secret.
async function checkToken(argument: string, out: (line: string) => void, input: () => Promise<string>): Promise<number> {
    const verdict = explainToken(argument === '-' ? await input() : argument);
    out(verdict.ok
        ? `A well-formed Hostless API key: ${verdict.prefix}_..., checksum valid. Whether it is live only the server that issued it can tell.`
        : `Not a Hostless API key: ${verdict.reason}.`);
    return verdict.ok ? 0 : 1;
}

async function readStdin(): Promise<string> {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) {
        chunks.push(chunk as Buffer);
    }

    return Buffer.concat(chunks).toString('utf8');
}

/** `config` may be a loader: commands that need no configuration (keys check) never load it. */
export async function runCli(argv: readonly string[], configOrLoader: Config | (() => Config), out: (line: string) => void, input: () => Promise<string> = readStdin): Promise<number> {
    const [group, action, email, ...rest] = argv;
    if (group === 'keys' && action === 'check' && email !== undefined && !rest.length) {
        return checkToken(email, out, input);
    }

    const config = typeof configOrLoader === 'function' ? configOrLoader() : configOrLoader;
    if (group === 'notifications' && action === 'retry' && !rest.length) {
        return withDatabase(config, (knex) => retryNotifications(knex, config, email, out));
    }

    if (group === 'campaign' && action === 'create') {
        return withDatabase(config, (knex) => createCampaign(knex, [email, ...rest], out));
    }

    const command: Command | undefined = email && !rest.length ? commands[`${group} ${action}`] : undefined;
    const deploymentCommand: DeploymentCommand | undefined = email === undefined ? deploymentCommands[`${group} ${action}`] : undefined;
    if (!command && !deploymentCommand) {
        out(USAGE);
        return 2;
    }

    return withDatabase(config, async (knex) => {
        if (deploymentCommand) {
            out(await deploymentCommand(knex, config));
            return 0;
        }

        const user = await findUser(knex, email, out);
        if (!user) {
            return 1;
        }

        const outcome = await knex.transaction(async (trx) => {
            const result = await command!(trx, user.id);
            if (result.event) {
                await recordSecurityEvent(trx, { type: result.event, userId: user.id, actor: 'cli', ...(result.data ? { data: result.data } : {}) });
            }

            return result;
        });
        out(`${user.email} ${outcome.said}.`);
        return 0;
    });
}

// `campaign create`: what the API deliberately cannot do (a user could grant themselves credit).
async function createCampaign(knex: Knex, args: ReadonlyArray<string | undefined>, out: (line: string) => void): Promise<number> {
    const [code, amount, currency, from, until] = args;
    if (args.length !== 5 || !code || !/^[A-Za-z0-9_-]{3,64}$/.test(code) || !amount || !/^\d+$/.test(amount) || !currency || !/^[A-Z]{3}$/.test(currency) ||
        !from || Number.isNaN(Date.parse(from)) || !until || Number.isNaN(Date.parse(until))) {
        out('Usage: npm run cli -- campaign create <CODE> <amount in minor units> <currency such as USD> <from> <until>');
        return 2;
    }

    try {
        const campaign = await new Credit(knex, () => new Date()).createCampaign({ code, amount: Number(amount), currency, startsAt: from, endsAt: until });
        out(`Campaign ${campaign.code} grants ${formatMoney(campaign.amount, campaign.currency)} of credit, redeemable from ${campaign.startsAt} until ${campaign.endsAt}.`);
        return 0;
    }
    catch (err) {
        const boom = err as { isBoom?: boolean; message: string };
        if (boom.isBoom) {
            out(boom.message);
            return 1;
        }

        throw err;
    }
}

// The server's workers pick the queued messages up; the command only writes them to the queue.
async function retryNotifications(knex: Knex, config: Config, email: string | undefined, out: (line: string) => void): Promise<number> {
    const user = email ? await findUser(knex, email, out) : null;
    if (email && !user) {
        return 1;
    }

    const outbox = new Outbox({ queue: new DatabaseQueue({ knex }), publicUrl: config.publicUrl });
    const queued = await outbox.retry(knex, user ? { userId: user.id } : {});
    out(`Queued ${queued} message${queued === 1 ? '' : 's'} for delivery again${user ? ` to ${user.email}` : ''}.`);
    if (!config.notifications.smtpUrl) {
        out('SMTP_URL is not set here: if the server has none either, they will be recorded as not_configured again.');
    }

    return 0;
}

async function findUser(knex: Knex, email: string, out: (line: string) => void): Promise<User | null> {
    const user = await User.query(knex).findOne({ email: normalizeEmail(email) });
    if (!user) {
        out(`No user with the email ${email}.`);
    }

    return user ?? null;
}

async function withDatabase(config: Config, run: (knex: Knex) => Promise<number>): Promise<number> {
    const knex = createKnex(config.database);
    try {
        await migrate(knex);
        return await run(knex);
    }
    finally {
        await knex.destroy();
    }
}

if (require.main === module) {
    runCli(process.argv.slice(2), () => loadConfig(process.env), (line) => console.log(line))
        .then((code) => process.exit(code))
        .catch((err: Error) => {
            console.error(err.message);
            process.exit(1);
        });
}
