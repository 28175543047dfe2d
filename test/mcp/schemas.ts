import * as Code from '@hapi/code';
import * as Lab from '@hapi/lab';
import type Joi from 'joi';

import { platformTools } from '../../lib/mcp/platform-tools';
import { PLATFORM_TOOL_KINDS } from '../../manifest/routes/mcp-tools';
import { ROUTE_TABLES } from '../../manifest/routes';
import { testServer, type TestServer } from '../helpers/server';

// One source for the fields REST and MCP share: a create or patch tool accepts exactly the bodies its REST route
// accepts. Each body of a corpus (every field at and past its bounds, each choice and a wrong one, nulls, empty
// strings, unknown keys) goes to the route's own Joi schema, taken from the running server, and to the tool's input
// schema; they must agree on every one. Values of the wrong JSON type for a number or boolean are left out: Joi
// converts a numeric string where REST expects a number, a tool's JSON Schema says number. A field checked by code (a
// Joi `custom` rule: a cron expression, a time zone) is checked by the API alone: the tool accepts every value REST
// accepts, and REST's 400 names the field for the others.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

interface Description {
    type: string;
    flags?: { only?: boolean; presence?: string };
    rules?: Array<{ name: string; args?: { limit?: number } }>;
    allow?: unknown[];
    keys?: Record<string, Description>;
    patterns?: unknown[];
}

/** Values around a field's rules: valid ones and ones just past each bound. */
function samples(field: string, description: Description): unknown[] {
    const limit = (name: string) => description.rules?.find((rule) => rule.name === name)?.args?.limit;
    const values: unknown[] = [null, '', 'plain', 0, -1, true, 1.5, [], {}];
    switch (description.type) {
        case 'string':
            values.push(...(description.allow ?? []), 'not-a-choice', ' padded ', 'UPPER', 'x-pr-3', 'good-name', 'owner/repo');
            for (const bound of [limit('min'), limit('max')].filter((n): n is number => n !== undefined)) {
                values.push('a'.repeat(bound), 'a'.repeat(bound + 1), 'a'.repeat(Math.max(0, bound - 1)));
            }

            if (field === 'projectId') {
                values.push('prj_0123456789abcdef', 'prj_short');
            }

            break;
        case 'number':
            for (const bound of [limit('min'), limit('max')].filter((n): n is number => n !== undefined)) {
                values.push(bound, bound + 1, bound - 1);
            }

            values.push('3');
            break;
        case 'object':
            values.push({ provider: 'github', repo: 'owner/repo', branch: 'main' }, { provider: 'github', repo: 'owner/repo' }, { provider: 'svn', repo: 'a/b', branch: 'x' },
                { provider: 'github', repo: 'owner/repo', branch: 'main', extra: 1 }, { GOOD_NAME: 'value' }, { GOOD_NAME: null }, { GOOD_NAME: '' }, { '1bad': 'x' }, { GOOD_NAME: 3 });
            break;
        default:
            break;
    }

    return values;
}

/** Valid values of the fields checked by code, which the generic samples cannot guess. */
const VALID: Readonly<Record<string, string>> = { schedule: '0 3 * * *', timeZone: 'Europe/Berlin' };
const checkedByCode = (field: Description) => (field.rules ?? []).some((rule) => rule.name === 'custom');

describe('MCP tool inputs and REST bodies', () => {

    let instance: TestServer;

    before(async () => {
        instance = await testServer();
    });

    after(async () => {
        await instance?.stop();
    });

    const payloadSchema = (routeId: string): Joi.ObjectSchema => {
        const route = instance.server.table().find((candidate) => candidate.settings.id === routeId)!;
        return route.settings.validate!.payload as Joi.ObjectSchema;
    };

    const rows = ROUTE_TABLES.flatMap((table) => table.rows);
    const tools = platformTools(PLATFORM_TOOL_KINDS, rows).filter((tool) => tool.offered && (tool.action === 'create' || tool.action === 'patch'));

    for (const tool of tools) {
        it(`${tool.name} accepts exactly the bodies ${tool.row.id} accepts`, () => {
            const rest = payloadSchema(tool.row.id);
            const fields = (rest.describe() as Description).keys ?? {};
            const base: Record<string, unknown> = tool.action === 'create'
                ? Object.fromEntries(Object.entries(fields).filter(([, field]) => field.flags?.presence === 'required').map(([key]) => [key, key === 'name' ? 'good-name' : VALID[key] ?? 'Good Name']))
                : { [Object.keys(fields)[0]]: samples(Object.keys(fields)[0], fields[Object.keys(fields)[0]]).find((value) => !rest.validate({ [Object.keys(fields)[0]]: value }).error) };
            const bodies: Array<Record<string, unknown>> = [{}, base, { ...base, unknownField: 1 }];
            const byCode = new Set<Record<string, unknown>>();
            const jsonType = (value: unknown, field: Description) => (field.type !== 'number' || typeof value !== 'string') && (field.type !== 'boolean' || typeof value !== 'string');
            for (const [key, field] of Object.entries(fields)) {
                for (const value of [...samples(key, field), ...VALID[key] ? [VALID[key]] : []].filter((candidate) => jsonType(candidate, field))) {
                    const body = { ...base, [key]: value };
                    bodies.push(body);
                    if (checkedByCode(field)) {
                        byCode.add(body);
                    }
                }
            }

            let compared = 0;
            for (const body of bodies) {
                const restAccepts = !rest.validate(body).error;
                const toolArgs = tool.action === 'patch' ? { [tool.key]: tool.key === 'name' ? 'some-app' : 'prj_0123456789abcdef', ...body } : body;
                const toolAccepts = tool.inputSchema.safeParse(toolArgs).success;
                // A body REST refuses only for holding no field at all is a patch the tool cannot see as such.
                if (tool.action === 'patch' && !Object.keys(body).length) {
                    continue;
                }

                if (byCode.has(body)) {
                    expect(!restAccepts || toolAccepts, `${JSON.stringify(body)}: REST accepts it`).to.be.true();
                }
                else {
                    expect(toolAccepts, `${JSON.stringify(body)}: REST ${restAccepts ? 'accepts' : 'refuses'} it`).to.equal(restAccepts);
                }

                ++compared;
            }

            expect(compared).to.be.above(20);
        });
    }
});
