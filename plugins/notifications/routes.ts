import Joi from 'joi';
import type { Knex } from 'knex';

import { access } from '../../lib/access';
import { CATEGORY_NAMES } from '../../lib/notifications/catalogue';
import { readPreferences, updatePreferences, type PreferenceChanges } from '../../lib/notifications/preferences';
import type { RouteHandlers } from '../../lib/route-table';

const changes = Joi.object(Object.fromEntries(CATEGORY_NAMES.map((category) => [category, Joi.boolean()]))).min(1)
    .messages({ 'object.unknown': '{{#label}} is not a notification category' });

export function preferenceRoutes(knex: Knex): RouteHandlers {
    return {
        'notificationPreferences.get': {
            handler: async (request) => ({ categories: await readPreferences(knex, access(request).user.id) })
        },
        'notificationPreferences.patch': {
            validate: { payload: changes },
            handler: async (request) => ({ categories: await updatePreferences(knex, access(request).user.id, request.payload as PreferenceChanges) })
        }
    };
}
