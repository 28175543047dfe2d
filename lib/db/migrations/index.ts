import type { Knex } from 'knex';

import * as identity from './001-identity';
import * as coreServices from './002-core-services';
import * as apps from './003-apps';

// Migrations in order, imported rather than scanned, so they load the same under lab (.ts), from dist (.js) and
// inside a host application that embeds the plugins.
export const MIGRATIONS: ReadonlyArray<{ name: string; up: (knex: Knex) => Promise<void>; down: (knex: Knex) => Promise<void> }> = [
    { name: '001-identity', ...identity },
    { name: '002-core-services', ...coreServices },
    { name: '003-apps', ...apps }
];
