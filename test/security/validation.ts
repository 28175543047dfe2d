import * as Code from '@hapi/code';
import type { ServerInjectOptions } from '@hapi/hapi';
import * as Lab from '@hapi/lab';
import Joi from 'joi';

import { kindsOf, ROUTE_TABLES } from '../../manifest/routes';
import { compileRow, type CompiledRow } from '../../lib/route-table';
import { mountedTables } from '../../manifest/api';
import { pageText } from '../helpers/dashboard';
import { createWorld, fill, ownerAdminFor, send, strongestFor, type World } from '../helpers/route-cases';
import { DIAGNOSTICS_ON, testServer, type TestServer } from '../helpers/server';

// Generated from the route tables: every mounted route's validation is walked with bad inputs built from its own
// schemas (wrong types, unknown fields, an empty or non-object body, peers that exclude or need each other,
// impossible calendar dates), and every refusal must be a 400 that names the field or the whole body in a user's
// words, never the validator's own terms. Form posts of the dashboard are refused for their missing form token
// before validation; their validation shares the same failAction.
const { describe, it, before, after } = exports.lab = Lab.script();
const { expect } = Code;

const INTERNALS = [
    '"value"', 'peer', 'conflict between', 'must have at least', '[ref:', 'ref:', 'failed custom validation', 'with value',
    'fails to match', 'of type', 'joi', 'threw an error', 'does not match any of the allowed types', 'keys failed to match',
    'invalid request', 'iso format', 'error code', 'is not defined', 'undefined', '[object', 'must be a buffer', 'stack', '{{', '#label'
];

type Source = 'payload' | 'query' | 'params';

interface Variant {
    name: string;
    source: Source;
    value: unknown;                                             // the whole payload, query or params
    names: string[];                                            // what the message must name, one of them at least
}

interface Described {
    type: string;
    keys?: Record<string, Described>;
    dependencies?: Array<{ rel: string; key?: string | null; peers: string[] }>;
}

// Values of the wrong kind for a field, by the type of its schema; a URL carries strings only.
const WRONG: Record<string, unknown[]> = {
    string: [12345, '', 'a\u202eb\u0000', 'x'.repeat(20_000), { a: 1 }],
    number: ['abc', -1, 1.5, 1e12, true],
    boolean: ['maybe', 2],
    date: ['2030-02-30T00:00:00Z', 'nope', 5, true],
    array: ['x', [12345], [], { a: 1 }],
    object: [5, 'x', [1], { zzUnknown: 1 }],
    alternatives: [5, { a: 1 }, [[1]]],
    any: [{ a: 1 }]
};
const WRONG_IN_URL = ['', 'zz zz', '-1', '2030-02-30T00:00:00Z', '2030-02-30', 'x'.repeat(600), '\u202e'];

// Values that some field accepts: peers are given valid values so that their relation is what fails.
const CANDIDATES: unknown[] = ['2030-01-01', '2030-01-01T00:00:00Z', 'web', 'a1', 'main', '0123456789abcdef0123456789abcdef', 1, 60, true, ['apps:read'], { a: 'b' }];

function validValue(schema: Joi.Schema, key: string, inUrl: boolean): unknown {
    const field = schema.extract(key);
    return CANDIDATES.map((candidate) => inUrl && typeof candidate !== 'object' ? String(candidate) : candidate)
        .find((candidate) => !field.validate(candidate).error);
}

function variants(source: Source, schema: Joi.Schema, example: Record<string, unknown>, method: string): Variant[] {
    const described = schema.describe() as Described;
    const inUrl = source !== 'payload';
    const out: Variant[] = [];
    if (source === 'payload') {
        out.push({ name: 'a list as the body', source, value: [], names: ['The request body'] });
        out.push({ name: 'an empty body', source, value: {}, names: ['The request body', '"'] });
    }

    if (described.type !== 'object') {
        return out;
    }

    if (source !== 'params') {
        out.push({ name: 'an unknown field', source, value: { ...example, zzUnknown: inUrl ? 'x' : 1 }, names: ['"zzUnknown"'] });
    }

    for (const [key, field] of Object.entries(described.keys ?? {})) {
        // An empty path segment is another route's address, not a bad value.
        const wrong = inUrl ? WRONG_IN_URL.filter((value) => source === 'query' || value) : WRONG[field.type] ?? WRONG.any;
        for (const value of wrong) {
            out.push({ name: `${key} = ${JSON.stringify(value).slice(0, 40)}`, source, value: { ...example, [key]: value }, names: [`"${key}`] });
        }

        // A field that takes a date (and not any text) takes only dates that exist.
        const accepts = (value: string) => !schema.extract(key).validate(value).error;
        for (const [good, impossible] of [['2030-01-30', '2030-02-30'], ['2030-01-30T00:00:00Z', '2030-02-30T00:00:00Z'], ['2029-02-28', '2029-02-29']]) {
            if (accepts(good) && !accepts(`${good}x`) && !accepts('zzzzzzzzzzzzzzzz')) {
                out.push({ name: `${key} = ${impossible} (impossible)`, source, value: { ...example, [key]: impossible }, names: [`"${key}" must be a date that exists on the calendar`] });
            }
        }
    }

    for (const dependency of described.dependencies ?? []) {
        const involved = [...dependency.key ? [dependency.key] : [], ...dependency.peers];
        const present = dependency.rel === 'with' ? [dependency.key!] : dependency.rel === 'without' || dependency.rel === 'nand' || dependency.rel === 'oxor' || dependency.rel === 'xor' ? involved : [];
        const value: Record<string, unknown> = { ...example };
        for (const key of involved) {
            delete value[key];
        }

        for (const key of present) {
            value[key] = validValue(schema, key, inUrl);
        }

        out.push({ name: `the ${dependency.rel} of ${involved.join(', ')}`, source, value, names: involved.map((key) => `"${key}"`) });
    }

    // A body on a PATCH that changes nothing says so.
    if (source === 'payload' && method === 'PATCH' && (described as { rules?: Array<{ name: string }> }).rules?.some((rule) => rule.name === 'min')) {
        out.push({ name: 'a PATCH body changing nothing', source, value: {}, names: ['The request body must change at least one field'] });
    }

    return out;
}

function requestFor(row: CompiledRow, base: ServerInjectOptions, variant: Variant): ServerInjectOptions {
    const url = new URL(base.url, 'http://x');
    if (variant.source === 'query') {
        url.search = new URLSearchParams(variant.value as Record<string, string>).toString();
        return { ...base, url: url.pathname + url.search };
    }

    if (variant.source === 'params') {
        const params = variant.value as Record<string, string>;
        const path = row.path.replace(/{(\w+)\*?\??}/g, (_match, name: string) => encodeURIComponent(params[name] ?? ''));
        return { ...base, url: path + url.search };
    }

    return { ...base, payload: variant.value as object };
}

/** The params a filled request holds, read back from its path against the row's. */
function paramsOf(row: CompiledRow, url: string): Record<string, string> {
    const names = [...row.path.matchAll(/{(\w+)\*?\??}/g)].map((match) => match[1]);
    const pattern = new RegExp(`^${row.path.replace(/[.]/g, '\\.').replace(/{\w+\*}/g, '(.+)').replace(/{\w+\??}/g, '([^/]*)')}$`);
    const values = pattern.exec(new URL(url, 'http://x').pathname)?.slice(1) ?? [];
    return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(values[i] ?? '')]));
}

for (const table of mountedTables()) {
    describe(`${table.family} routes: validation messages`, () => {

        let instance: TestServer;
        let world: World;

        before(async () => {
            instance = await testServer(DIAGNOSTICS_ON);
            world = await createWorld(instance.server);
            await ownerAdminFor(world, table);
        });

        after(async () => {
            await instance?.stop();
        });

        for (const plain of table.rows.filter((row) => row.body !== 'form')) {
            const row = compileRow(plain, kindsOf(ROUTE_TABLES));
            it(`${row.id}: refuses bad input with 400 naming the field in a user's words`, async () => {
                const route = instance.server.lookup(row.id);
                const validate = route?.settings.validate as Partial<Record<Source, Joi.Schema>> | undefined;
                const { request } = await fill(world, row);
                const authorization = await strongestFor(world, row, world.owner);
                const examples: Record<Source, Record<string, unknown>> = {
                    payload: (request.payload ?? {}) as Record<string, unknown>,
                    query: Object.fromEntries(new URL(request.url as string, 'http://x').searchParams),
                    params: paramsOf(row, request.url as string)
                };

                let sent = 0;
                let schemas = 0;
                for (const source of ['params', 'query', 'payload'] as const) {
                    const schema = validate?.[source];
                    if (!Joi.isSchema(schema) || source === 'payload' && row.method === 'GET') {
                        continue;
                    }

                    // A schema that takes any parameters leaves their checks to the protocol (OAuth's authorize
                    // answers its errors by redirect or page, RFC 6749): there is no bad input for it to refuse.
                    if ((schema.describe() as { flags?: { unknown?: boolean }; keys?: object }).flags?.unknown && !(schema.describe() as { keys?: object }).keys) {
                        continue;
                    }

                    ++schemas;
                    for (const variant of variants(source, schema, examples[source], row.method)) {
                        if (!schema.validate(variant.value).error) {
                            continue;                           // accepted: not a bad input for this route
                        }

                        const res = await send(instance.server, requestFor(row, request, variant), authorization);
                        const message = String(res.headers['content-type']).startsWith('text/html') ? pageText(res.payload) : String(res.result?.message ?? res.payload);
                        const label = `${row.id} ${source}: ${variant.name}: ${message}`;
                        expect(res.statusCode, label).to.equal(400);
                        expect(variant.names.some((name) => message.includes(name)), label).to.be.true();
                        for (const internal of INTERNALS) {
                            expect(message.toLowerCase(), label).to.not.include(internal);
                        }

                        ++sent;
                    }
                }

                expect(sent > 0 || schemas === 0, 'no bad input was tried').to.be.true();
            });
        }
    });
}
