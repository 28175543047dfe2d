import Joi from 'joi';

import { resolvedId } from '../../../lib/access';
import type { RouteHandlers } from '../../../lib/route-table';
import type { MetricName } from '../../../lib/runtime/driver';
import type { AppsServices } from '../services';
import { metricRange } from '../services/observability';
import { logQuery, metricsQuery, params } from '../schemas';

// Runtime logs, metrics and traces of an app.
export function observabilityRoutes(services: AppsServices): RouteHandlers {
    const { apps, observability } = services;
    const metric = (name: MetricName): RouteHandlers[string] => ({
        validate: { params: params.app, query: metricsQuery },
        handler: async (request) => {
            const query = request.query as { startDate?: string; endDate?: string; since?: Date; until?: Date; step?: number };
            const range = metricRange({ ...query, since: query.since?.toISOString(), until: query.until?.toISOString() } as Parameters<typeof metricRange>[0]);
            return observability.metric(await apps.get(resolvedId(request, 'app')), name, range);
        }
    });

    return {
        'apps.logs': {
            validate: { params: params.app, query: logQuery },
            handler: async (request) => {
                const query = request.query as { q?: string; level?: 'info'; since?: Date; until?: Date; limit: number };
                return services.context.logs.query({
                    resourceId: resolvedId(request, 'app'), streams: ['runtime', 'release'], limit: query.limit,
                    ...(query.q ? { q: query.q } : {}), ...(query.level ? { level: query.level } : {}),
                    ...(query.since ? { since: query.since.toISOString() } : {}), ...(query.until ? { until: query.until.toISOString() } : {})
                });
            }
        },
        'apps.metrics.requestCount': metric('request-count'),
        'apps.metrics.responseDuration': metric('response-duration'),
        'apps.metrics.cpuUsage': metric('cpu-usage'),
        'apps.metrics.memoryUsage': metric('memory-usage'),
        'apps.traces': {
            validate: {
                params: params.app,
                query: Joi.object({ since: Joi.date().iso(), until: Joi.date().iso(), traceId: Joi.string().pattern(/^[0-9a-f]{32}$/, 'trace id'), limit: Joi.number().integer().min(1).max(500).default(100) })
            },
            handler: async (request) => {
                const query = request.query as { since?: Date; until?: Date; traceId?: string; limit: number };
                return observability.traces(await apps.get(resolvedId(request, 'app')), {
                    limit: query.limit, ...(query.since ? { since: query.since.toISOString() } : {}), ...(query.until ? { until: query.until.toISOString() } : {}),
                    ...(query.traceId ? { traceId: query.traceId } : {})
                });
            }
        }
    };
}
