import { keyRoute, type RouteTable } from '../../lib/route-table';

// The development-only test-data routes (api-contract.md section 12, docs/test-data.md): mounted only when the
// process gates of lib/test-data/gates.ts hold, and reachable only with an API key holding a test-data scope (the
// access pipeline refuses sessions and OAuth tokens, which never carry one). Each answers one MCP test-data tool.

/** Which MCP tool each route answers for. */
export const TEST_DATA_ROUTE_TOOLS: Readonly<Record<string, string>> = {
    'testData.capabilities': 'test_data_capabilities',
    'testData.plan': 'test_scenario_plan',
    'testData.apply': 'test_scenario_apply',
    'testData.get': 'test_scenario_get',
    'testData.advance': 'test_scenario_advance',
    'testData.assert': 'test_scenario_assert',
    'testData.reset': 'test_scenario_reset'
};

const scenario = { scenarioId: 'tsc_0000000000000000' };
const keyed = { environment: 'dev', revision: 1, idempotencyKey: 'example-1' };

export const testDataTable: RouteTable = {
    family: 'test-data',
    rows: [
        keyRoute('testData.capabilities', 'GET', '/test-data/capabilities', 'test-data:read',
            'The test-data templates with their versions, modes, overrides and defaults, the assertion checks, the limits and the configured environments.', { example: {} }),
        keyRoute('testData.plan', 'POST', '/test-data/scenarios', 'test-data:write',
            'Stores an immutable scenario plan (every default resolved) with its digest over the plan, generator version and policy snapshot; answers its scenarioId.',
            { example: { payload: { environment: 'dev', template: 'usage_history', seed: 42, days: 2 }, status: 201 } }),
        keyRoute('testData.apply', 'POST', '/test-data/scenarios/{scenarioId}/apply', 'test-data:write',
            'Applies a plan once per idempotency key when its digest matches: writes its records and their manifest, and ends ready or failed.',
            { example: { params: scenario, payload: { environment: 'dev', digest: '0'.repeat(64), idempotencyKey: 'example-1' } } }),
        keyRoute('testData.get', 'GET', '/test-data/scenarios/{scenarioId}', 'test-data:read',
            'A scenario\'s status, revision, plan and last run, with a page of its record manifest; a run whose lease expired is reported failed.', { example: { params: scenario } }),
        keyRoute('testData.advance', 'POST', '/test-data/scenarios/{scenarioId}/advance', 'test-data:write',
            'Moves a behavioral scenario\'s logical time forward (to, or hours), writing the records up to it; written records never change.',
            { example: { params: scenario, payload: { ...keyed, hours: 24 } } }),
        keyRoute('testData.assert', 'GET', '/test-data/scenarios/{scenarioId}/assertions', 'test-data:read',
            'Checks a scenario\'s stored records: relationships, usage_conserved, credit_nonnegative, credit_exhausted, payment_state (expectedState) and notifications_delivered.',
            { example: { params: scenario, query: { checks: 'relationships' } } }),
        keyRoute('testData.reset', 'POST', '/test-data/scenarios/{scenarioId}/reset', 'test-data:delete',
            'Removes the records a scenario owns through its manifest; refused while an invoice scenario made from it is current, or something outside it refers to them.',
            { example: { params: scenario, payload: keyed } })
    ]
};
