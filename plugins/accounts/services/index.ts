import type { Knex } from 'knex';

import type { Outbox } from '../../../lib/notifications/outbox';
import type { SessionSigner } from '../../../lib/session-token';
import { AccountsService, type AccountsSettings } from './accounts';
import { SessionService } from './sessions';
import { SshKeysService } from './ssh-keys';

export interface Services {
    knex: Knex;
    accounts: AccountsService;
    sessions: SessionService;
    sshKeys: SshKeysService;
}

export function createServices(knex: Knex, signer: SessionSigner, outbox: Outbox, settings: AccountsSettings): Services {
    const sessions = new SessionService(knex, signer, outbox);
    return { knex, sessions, accounts: new AccountsService(knex, sessions, settings), sshKeys: new SshKeysService(knex) };
}
