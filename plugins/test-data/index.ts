import type { Request } from '@hapi/hapi';
import Joi from 'joi';
import type { Knex } from 'knex';

import type { DatabaseConfig } from '../../lib/db/knex';
import { bindRoutes, route, type FamilyPlugin } from '../../lib/route-table';
import { CHECKS, PAYMENT_STATES, type Check } from '../../lib/test-data/assertions';
import { checkCaller, primaryDatabaseName, type CallGate, type TestDataConfig } from '../../lib/test-data/gates';
import { Scenarios } from '../../lib/test-data/scenarios';
import { MODES, PLAN_FIELDS, TEMPLATES } from '../../lib/test-data/templates';
import { testDataTable } from '../../manifest/routes/test-data';

// The test-data family (docs/test-data.md). Registered only when the process gates hold (manifest/api.ts); each
// request is then checked again: an API key (sessions and OAuth tokens are refused), its user in the allow-list, the
// environment listed and fit for the template. The scenarios themselves live in lib/test-data/.
export interface TestDataPluginOptions {
    knex: Knex;
    nodeEnv: string | null;
    config: TestDataConfig;
    database: DatabaseConfig;
    dataDir: string;
    clock?: () => Date;
}

const scenarioId = Joi.string().pattern(/^tsc_[0-9A-Za-z]{16}$/).required().messages({ 'string.pattern.base': '{{#label}} is not a valid tsc_ id' });
const scenarioIdOptional = Joi.string().pattern(/^tsc_[0-9A-Za-z]{16}$/).messages({ 'string.pattern.base': '{{#label}} is not a valid tsc_ id' });
const environment = Joi.string().pattern(/^[a-z0-9_-]{1,40}$/).required();
const idempotencyKey = Joi.string().min(1).max(200).required();
const revision = Joi.number().integer().min(0).required();
const day = Joi.number().integer().min(1).max(31).allow(null);
const rate = Joi.number().min(0).max(1000);

const planSchema = Joi.object({
    environment, template: Joi.string().valid(...TEMPLATES.map((template) => template.name)).required(),
    mode: Joi.string().valid(...MODES), seed: Joi.number().integer().min(0).max(2 ** 31 - 1), start: Joi.string().isoDate(), days: Joi.number().integer().min(1).max(31),
    apps: Joi.number().integer().min(0).max(20), databases: Joi.number().integer().min(0).max(10), pattern: Joi.string().valid('steady', 'diurnal', 'spiky'),
    credit: Joi.number().min(0).max(100_000), cpuRate: rate, memoryRate: rate, storageRate: rate, intervalMinutes: Joi.number().valid(15, 30, 60, 1440),
    paymentClearsOnDay: day, notificationFailureDay: day, projectId: Joi.string().pattern(/^prj_[0-9A-Za-z]{16}$/), appName: Joi.string().pattern(/^[a-z][a-z0-9-]{0,62}$/),
    resourceKind: Joi.string().valid('app', 'worker', 'database'), resourceName: Joi.string().pattern(/^[a-z][a-z0-9-]{0,62}$/), storageGiB: Joi.number().min(0).max(1000),
    cpuCores: Joi.number().min(0.1).max(64), memoryMiB: Joi.number().integer().min(128).max(262_144), sourceScenarioId: scenarioIdOptional,
    additionalSourceScenarioIds: Joi.array().items(scenarioIdOptional).max(5), replacesInvoiceScenarioId: scenarioIdOptional.allow(null)
});

// Every plan field is typed above: a field the catalogue gains must be typed here too.
const typed = Object.keys(planSchema.describe().keys as object);
if (PLAN_FIELDS.some((field) => !typed.includes(field))) {
    throw new Error(`test-data plan fields without a schema: ${PLAN_FIELDS.filter((field) => !typed.includes(field)).join(', ')}`);
}

export const testDataPlugin: FamilyPlugin<TestDataPluginOptions> = {
    name: 'hostless-test-data',
    table: testDataTable,
    dependencies: ['hostless-auth'],
    register(server, options) {
        const gate: CallGate = { nodeEnv: options.nodeEnv, config: options.config, primary: primaryDatabaseName(options.database) };
        const scenarios = new Scenarios({ knex: options.knex, gate, database: options.database, dataDir: options.dataDir, ...(options.clock ? { clock: options.clock } : {}) });
        server.ext('onPostStop', () => scenarios.close());

        const actor = (request: Pick<Request, 'auth'>) => {
            const credentials = request.auth.credentials;
            checkCaller(gate, { via: credentials.via, userId: credentials.user!.id });
            return { userId: credentials.user!.id };
        };
        const params = Joi.object<{ scenarioId: string }, true>({ scenarioId });

        bindRoutes(server, testDataTable, {
            'testData.capabilities': route({ handler: (request) => (actor(request), scenarios.capabilities()) }),
            'testData.plan': route<object, object, Record<string, unknown>>({
                payload: planSchema,
                handler: async (request, h) => h.response(await scenarios.plan(actor(request), request.payload)).code(201)
            }),
            'testData.apply': route<{ scenarioId: string }, object, { environment: string; digest: string; idempotencyKey: string }>({
                params,
                payload: Joi.object({ environment, digest: Joi.string().hex().length(64).required(), idempotencyKey }),
                handler: (request) => scenarios.apply(actor(request), { scenarioId: request.params.scenarioId, ...request.payload })
            }),
            'testData.get': route<{ scenarioId: string }, { limit: number; cursor?: number }>({
                params,
                query: Joi.object({ limit: Joi.number().integer().min(1).max(100).default(25), cursor: Joi.number().integer().min(0) }),
                handler: (request) => scenarios.get(actor(request), request.params.scenarioId, request.query)
            }),
            'testData.advance': route<{ scenarioId: string }, object, { environment: string; revision: number; idempotencyKey: string; to?: string; hours?: number }>({
                params,
                payload: Joi.object({ environment, revision, idempotencyKey, to: Joi.string().isoDate(), hours: Joi.number().integer().min(1).max(744) }).oxor('to', 'hours'),
                handler: (request) => scenarios.advance(actor(request), { scenarioId: request.params.scenarioId, ...request.payload })
            }),
            'testData.assert': route<{ scenarioId: string }, { checks?: string; expectedState?: string }>({
                params,
                query: Joi.object({ checks: Joi.string().pattern(new RegExp(`^(${CHECKS.join('|')})(,(${CHECKS.join('|')}))*$`)).messages({ 'string.pattern.base': `{{#label}} must be a comma list of ${CHECKS.join(', ')}` }), expectedState: Joi.string().valid(...PAYMENT_STATES) }),
                handler: (request) => scenarios.assert(actor(request), request.params.scenarioId, request.query.checks?.split(',') as Check[] | undefined, request.query.expectedState)
            }),
            'testData.reset': route<{ scenarioId: string }, object, { environment: string; revision: number; idempotencyKey: string }>({
                params,
                payload: Joi.object({ environment, revision, idempotencyKey }),
                handler: (request) => scenarios.reset(actor(request), { scenarioId: request.params.scenarioId, ...request.payload })
            })
        });
    }
};
