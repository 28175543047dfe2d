import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

import { ApiUnreachableError, type ApiClient, type ApiRequest } from './api-client';
import { failure, success, type Tool, type ToolDefinition } from './tool';

// The seven test-data tools (docs/test-data.md), development only: offered to API keys when the MCP process's own
// gates hold (NODE_ENV local, dev or development and MCP_TEST_DATA_ENABLED), each one call to a `/v1/test-data/*`
// route with the caller's key. The API checks every other gate (allow-list, environment, scope) on the call itself.

export const TEST_DATA_GROUP = 'test-data';

export interface TestDataToolDefinition extends ToolDefinition {
    request: (args: Record<string, unknown>) => Pick<ApiRequest, 'method' | 'path' | 'query' | 'body'>;
}

const scenarioId = () => z.string().regex(/^tsc_[0-9A-Za-z]{16}$/, 'a scenario id such as tsc_4f9KqzT0aBcD1eFg').describe('The scenario (tsc_...).');
const environment = () => z.string().describe('A TEST_DATA_ENVIRONMENTS name, such as dev.');
const key = () => z.string().min(1).max(200).describe('A new key per request; repeating one replays its run.');
const revision = () => z.number().int().min(0).describe('The scenario\'s current revision (test_scenario_get).');
const enc = (value: unknown) => encodeURIComponent(String(value));
const int = (what: string) => z.number().int().optional().describe(what);

const read = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const write = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const tool = (name: string, title: string, description: string, shape: z.ZodRawShape, annotations: ToolDefinition['annotations'], request: TestDataToolDefinition['request']): TestDataToolDefinition => ({
    name, group: TEST_DATA_GROUP, title, description: `${description} Development only.`, inputSchema: z.object(shape).strict(), annotations, request
});

const body = (args: Record<string, unknown>) => Object.fromEntries(Object.entries(args).filter(([name]) => name !== 'scenarioId'));

export const TEST_DATA_TOOLS: readonly TestDataToolDefinition[] = [
    tool('test_data_capabilities', 'Test-data capabilities', 'Templates with versions, modes, overrides and defaults; checks; limits; environments.', {}, read,
        () => ({ method: 'GET', path: '/v1/test-data/capabilities' })),
    tool('test_scenario_plan', 'Plan a test scenario', 'Stores an immutable plan and returns scenarioId and digest. Overrides a template does not support are refused.', {
        environment: environment(),
        template: z.enum(['usage_history', 'deployment_history', 'account_lifecycle', 'credit_exhaustion', 'payment_recovery', 'notification_eligibility', 'dashboard_usage', 'dashboard_invoice']),
        mode: z.enum(['historical', 'behavioral']).optional(), seed: z.number().int().min(0).describe('Same seed, same records.'),
        start: z.string().optional().describe('ISO 8601 UTC.'), days: int('1-31 (dashboard_usage 1-7).'), apps: int('Apps.'), databases: int('Databases.'),
        pattern: z.enum(['steady', 'diurnal', 'spiky']).optional(), credit: z.number().optional().describe('USD.'),
        cpuRate: z.number().optional(), memoryRate: z.number().optional(), storageRate: z.number().optional(), intervalMinutes: int('15, 30, 60 or 1440.'),
        paymentClearsOnDay: int('payment_recovery.'), notificationFailureDay: int('Day a notice fails and is retried.'),
        projectId: z.string().optional(), appName: z.string().optional(), resourceKind: z.enum(['app', 'worker', 'database']).optional(), resourceName: z.string().optional(),
        storageGiB: z.number().optional(), cpuCores: z.number().optional(), memoryMiB: int('MiB.'),
        sourceScenarioId: z.string().optional().describe('dashboard_invoice: a ready dashboard_usage scenario.'),
        additionalSourceScenarioIds: z.array(z.string()).max(5).optional(), replacesInvoiceScenarioId: z.string().optional()
    }, write, (args) => ({ method: 'POST', path: '/v1/test-data/scenarios', body: args })),
    tool('test_scenario_apply', 'Apply a test scenario', 'Runs a plan once per idempotencyKey when digest matches; returns the run and its status (ready or failed).', {
        scenarioId: scenarioId(), digest: z.string().describe('The plan\'s digest.'), environment: environment(), idempotencyKey: key()
    }, write, (args) => ({ method: 'POST', path: `/v1/test-data/scenarios/${enc(args.scenarioId)}/apply`, body: body(args) })),
    tool('test_scenario_get', 'Inspect a test scenario', 'Status, revision, plan, last run and a page of the record manifest.', {
        scenarioId: scenarioId(), limit: int('1-100 (default 25).'), cursor: int('The previous page\'s next.')
    }, read, (args) => ({ method: 'GET', path: `/v1/test-data/scenarios/${enc(args.scenarioId)}`, query: { limit: args.limit as number | undefined, cursor: args.cursor as number | undefined } })),
    tool('test_scenario_advance', 'Advance a test scenario', 'Moves a behavioral scenario\'s logical time forward (to or hours); written records never change.', {
        scenarioId: scenarioId(), environment: environment(), revision: revision(), idempotencyKey: key(), to: z.string().optional().describe('ISO 8601 UTC.'), hours: int('Hours forward (default 24).')
    }, write, (args) => ({ method: 'POST', path: `/v1/test-data/scenarios/${enc(args.scenarioId)}/advance`, body: body(args) })),
    tool('test_scenario_assert', 'Assert on a test scenario', 'Checks stored records: relationships, usage_conserved, credit_nonnegative, credit_exhausted, payment_state (expectedState), notifications_delivered.', {
        scenarioId: scenarioId(), checks: z.array(z.enum(['relationships', 'usage_conserved', 'credit_nonnegative', 'credit_exhausted', 'payment_state', 'notifications_delivered'])).optional(),
        expectedState: z.enum(['open', 'paid', 'payment_failed']).optional()
    }, read, (args) => ({
        method: 'GET', path: `/v1/test-data/scenarios/${enc(args.scenarioId)}/assertions`,
        query: { checks: (args.checks as string[] | undefined)?.join(','), expectedState: args.expectedState as string | undefined }
    })),
    tool('test_scenario_reset', 'Reset a test scenario', 'Removes the records the scenario owns through its manifest. Reset an invoice scenario before its sources.', {
        scenarioId: scenarioId(), environment: environment(), revision: revision(), idempotencyKey: key()
    }, { ...write, destructiveHint: true }, (args) => ({ method: 'POST', path: `/v1/test-data/scenarios/${enc(args.scenarioId)}/reset`, body: body(args) }))
];

function result(definition: TestDataToolDefinition, status: number, answer: unknown): CallToolResult {
    const object = typeof answer === 'object' && answer !== null && !Array.isArray(answer) ? answer as Record<string, unknown> : { statusCode: status };
    if (status >= 300) {
        const reason = [object.error, object.message].filter(Boolean).join(': ');
        return failure(`${definition.name} was refused by the API with ${status}${reason ? ` ${reason}` : ''}\n\n${JSON.stringify(object)}`);
    }

    const state = [object.status, object.passed === undefined ? null : object.passed ? 'passed' : 'failed'].filter((item) => typeof item === 'string').join(', ');
    return success(`${definition.title}${state ? `: ${state}` : ''}.`, object);
}

/** The test-data tools acting on this deployment's API with the caller's key. */
export function testDataToolsOn(api: ApiClient, definitions: readonly TestDataToolDefinition[] = TEST_DATA_TOOLS): Tool[] {
    return definitions.map((definition) => ({
        ...definition,
        handler: async (args, { authorization, forwardedFor }) => {
            if (!authorization) {
                return failure(`${definition.name} needs an API key with test-data scopes`);
            }

            try {
                const answer = await api.request({ ...definition.request(args), authorization, ...(forwardedFor ? { forwardedFor } : {}) });
                return result(definition, answer.status, answer.body);
            }
            catch (err) {
                if (err instanceof ApiUnreachableError) {
                    return failure(err.message);
                }

                throw err;
            }
        }
    }));
}
