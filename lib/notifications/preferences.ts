import * as Boom from '@hapi/boom';
import type { Knex } from 'knex';

import { nowIso } from '../time';
import { CATEGORIES, CATEGORY_NAMES, type NotificationCategory } from './catalogue';

// Which categories a user receives: every category is on until the user switches it off; a required category
// (security) is always on and cannot be switched off. A row exists only where the user chose.
export interface CategoryPreference {
    category: NotificationCategory;
    description: string;
    enabled: boolean;
    required: boolean;
}

export type PreferenceChanges = Partial<Record<NotificationCategory, boolean>>;

interface PreferenceRow {
    user_id: string;
    category: string;
    enabled: boolean | number;                                  // a boolean on PostgreSQL, 0 or 1 on SQLite
    updated_at: string;
}

export async function readPreferences(db: Knex | Knex.Transaction, userId: string): Promise<CategoryPreference[]> {
    const rows = await db<PreferenceRow>('notification_preferences').where({ user_id: userId }).select('category', 'enabled');
    const chosen = new Map(rows.map((row) => [row.category, Boolean(row.enabled)]));
    return CATEGORY_NAMES.map((category) => {
        const { description, required } = CATEGORIES[category];
        return { category, description, required, enabled: required || (chosen.get(category) ?? true) };
    });
}

/** Applies the changes at once (all or none) and answers the preferences after them. */
export async function updatePreferences(knex: Knex, userId: string, changes: PreferenceChanges): Promise<CategoryPreference[]> {
    const refused = CATEGORY_NAMES.find((category) => CATEGORIES[category].required && changes[category] === false);
    if (refused) {
        throw Boom.badRequest(`"${refused}" messages cannot be switched off: they tell you about your account's security`);
    }

    return knex.transaction(async (trx) => {
        for (const [category, enabled] of Object.entries(changes)) {
            if (!CATEGORIES[category as NotificationCategory].required) {
                await trx('notification_preferences').insert({ user_id: userId, category, enabled, updated_at: nowIso() }).onConflict(['user_id', 'category']).merge();
            }
        }

        return readPreferences(trx, userId);
    });
}

export async function receives(db: Knex, userId: string, category: NotificationCategory): Promise<boolean> {
    if (CATEGORIES[category].required) {
        return true;
    }

    const row = await db<PreferenceRow>('notification_preferences').where({ user_id: userId, category }).first('enabled');
    return row ? Boolean(row.enabled) : true;
}
