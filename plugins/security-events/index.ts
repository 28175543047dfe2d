import Joi from 'joi';
import type { Knex } from 'knex';

import { access } from '../../lib/access';
import { bindRoutes, type FamilyPlugin } from '../../lib/route-table';
import { MAX_LIMIT, DEFAULT_LIMIT } from '../../lib/pagination';
import { dailyJob } from '../../lib/queue/daily';
import { pruneSecurityEvents } from '../../lib/security-events';
import { securityEventsTable } from '../../manifest/routes/security-events';

// The security trail: the signed-in user's events, and a daily job that removes events past their retention.
export interface SecurityEventsPluginOptions {
    knex: Knex;
    retentionDays: number;
}

const PRUNE_JOB = 'security-events.prune';

interface EventRow {
    seq: number | string;
    id: string;
    type: string;
    actor: string;
    credential_id: string | null;
    ip: string | null;
    data: string;
    created_at: string;
}

export const securityEventsPlugin: FamilyPlugin<SecurityEventsPluginOptions> = {
    name: 'hostless-security-events',
    table: securityEventsTable,
    dependencies: ['hostless-auth', 'hostless-jobs'],
    register(server, options) {
        // One run a day per deployment, whichever process schedules it first.
        const queue = server.plugins['hostless-jobs'].queue;
        server.ext('onPostStart', dailyJob(queue, PRUNE_JOB, () => pruneSecurityEvents(options.knex, options.retentionDays)));

        bindRoutes(server, securityEventsTable, {
            'securityEvents.list': {
                validate: {
                    query: Joi.object({ limit: Joi.number().integer().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT), cursor: Joi.string().pattern(/^\d{1,18}$/) })
                        .messages({ 'string.pattern.base': '"cursor" is not a valid cursor' })
                },
                handler: async (request, h) => {
                    const { limit, cursor } = request.query as { limit: number; cursor?: string };
                    const query = options.knex('security_events').where('user_id', access(request).user.id).orderBy('seq', 'desc').limit(limit + 1);
                    if (cursor) {
                        query.where('seq', '<', Number(cursor));
                    }

                    const rows = await query as EventRow[];
                    const page = rows.slice(0, limit);
                    const response = h.response(page.map((row) => ({
                        id: row.id, type: row.type, actor: row.actor, credentialId: row.credential_id, ip: row.ip, data: JSON.parse(row.data) as unknown, createdAt: row.created_at
                    })));
                    if (rows.length > limit) {
                        const url = new URL(request.url.href);
                        url.searchParams.set('cursor', String(page[page.length - 1].seq));
                        response.header('link', `<${url.pathname}${url.search}>; rel="next"`);
                    }

                    return response;
                }
            }
        });
    }
};
