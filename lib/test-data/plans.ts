import * as Boom from '@hapi/boom';

import { DASHBOARD_TEMPLATES } from './gates';
import type { GenRecord, Plan, Template } from './templates';

// A plan as stored: every default resolved, the limits kept (docs/test-data.md "Limits"), and the rows that hold
// scenarios and their runs.

export const LIMITS = { maxDays: 31, maxRecords: 10_000, maxUsageSteps: 10_000, maxOpenScenarios: 10, dashboardMaxDays: 7, maxStorageGiB: 1000, maxAdditionalSources: 5 } as const;
export const DAY = 24 * 3600_000;

export type ScenarioRow = Record<string, unknown> & {
    id: string; actor_id: string; environment: string; template: string; mode: string; generator_version: number; plan: string; policy: string;
    digest: string; status: string; revision: number; logical_time: string | null; project_id: string | null; period_start: string | null;
    superseded_by: string | null; created_at: string; updated_at: string;
};

export type RunRow = { id: string; scenario_id: string; actor_id: string; environment: string; idempotency_key: string; action: string; status: string; failure_code: string | null; lease_until: string; created_at: string; finished_at: string | null };

export interface Actor {
    userId: string;
}

export const usageSteps = (records: readonly GenRecord[]) => records.filter((record) => record.collection === 'usage_sample' || record.collection === 'usage_day').length;

export function resolvePlan(template: Template, input: Record<string, unknown>, now: Date): Plan {
    const dashboard = DASHBOARD_TEMPLATES.includes(template.name);
    const days = Number(input.days ?? (dashboard ? 7 : 7));
    const max = template.name === 'dashboard_usage' ? LIMITS.dashboardMaxDays : LIMITS.maxDays;
    if (!Number.isInteger(days) || days < 1 || days > max) {
        throw Boom.badRequest(`days must be 1 to ${max} for ${template.name}`);
    }

    const mode = (input.mode ?? 'historical') as Plan['mode'];
    if (dashboard && mode !== 'historical') {
        throw Boom.badRequest(`mode must be historical for ${template.name}`);
    }

    if (input.seed === undefined) {
        throw Boom.badRequest('seed is required: the same seed gives the same records');
    }

    const today = new Date(now.toISOString().slice(0, 10)).getTime();
    const start = input.start === undefined ? new Date(today - (mode === 'historical' ? days * DAY : 0)).toISOString() : new Date(input.start as string).toISOString();
    const plan = { ...template.defaults, ...input, mode, days, start } as Plan;
    if (template.name === 'dashboard_usage') {
        plan.resourceName ??= `test-${plan.resourceKind}`;
        if (plan.resourceKind === 'app' && plan.intervalMinutes !== 60) {
            throw Boom.badRequest('intervalMinutes must be 60 for an app (1440 is for workers and databases)');
        }
    }

    for (const field of ['paymentClearsOnDay', 'notificationFailureDay'] as const) {
        if (typeof plan[field] === 'number' && plan[field] > days) {
            throw Boom.badRequest(`${field} must be within the plan's ${days} days`);
        }
    }

    return plan;
}

export function limitGenerated(template: Template, plan: Plan) {
    const records = template.generate!(plan);
    const steps = usageSteps(records);
    if (records.length > LIMITS.maxRecords) {
        throw Boom.badRequest(`The plan makes ${records.length} records, more than the ${LIMITS.maxRecords} allowed: fewer days, resources or a longer intervalMinutes`);
    }

    if (steps > LIMITS.maxUsageSteps) {
        throw Boom.badRequest(`The plan makes ${steps} usage steps, more than the ${LIMITS.maxUsageSteps} allowed`);
    }

    return { records: records.length, usageSteps: steps };
}
