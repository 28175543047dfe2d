import * as Crypto from 'node:crypto';

import type { Server, ServerInjectOptions, ServerInjectResponse } from '@hapi/hapi';

import { checksum } from '../../lib/api-key-token';
import { randomBase62 } from '../../lib/base62';
import type { CompiledRow, ExamplePart, Fixture, RouteRow, RouteTable } from '../../lib/route-table';
import { SCOPES, type Scope } from '../../lib/scopes';
import { fixturesOf, ROUTE_TABLES } from '../../manifest/routes';
import { createKey, joinProject, login, PASSWORD, register, uniqueEmail, uniqueName, type TestUser } from './api';
import { SEEDERS } from './seeders';
import { sshPublicKey } from './ssh';

// Turns a route table row and its example into real requests: the fixtures it needs are made through the API by the
// owner, placeholders are filled, and the same request can be sent as the owner, an outsider, a viewer or nobody.

export interface World {
    server: Server;
    owner: TestUser;
    outsider: TestUser;
    viewer: TestUser;
    keys: Map<string, string>;                                  // cache: `<user>:<scopes>` -> token
    fixtures: Readonly<Record<string, Fixture>>;                // how to make what the examples name
}

/** The owner, an outsider and a viewer of the owner's project; `tables` beyond the platform's bring their fixtures. */
export async function createWorld(server: Server, tables: readonly RouteTable[] = []): Promise<World> {
    const [owner, outsider, viewer] = [await register(server, 'owner'), await register(server, 'outsider'), await register(server, 'viewer')];
    await joinProject(server, owner, owner.projectId, viewer, 'viewer');
    return { server, owner, outsider, viewer, keys: new Map(), fixtures: fixturesOf([...ROUTE_TABLES, ...tables]) };
}

/** Admin rows are answered for a platform admin: the owner of a world that calls them is made one, as the CLI does. */
export async function ownerAdminFor(world: World, table: RouteTable): Promise<void> {
    if (table.rows.some((row) => row.auth === 'admin')) {
        await world.server.app.knex('users').where('id', world.owner.id).update({ admin_since: new Date().toISOString() });
    }
}

export async function keyFor(world: World, user: TestUser, scopes: readonly Scope[]): Promise<string> {
    const cacheKey = `${user.id}:${scopes.join(',')}`;
    let token = world.keys.get(cacheKey);
    if (!token) {
        token = (await createKey(world.server, user, scopes)).token;
        world.keys.set(cacheKey, token);
    }

    return token;
}

/** The credential a row needs, for a user: a key with exactly the row's scope, or a fresh session. */
export async function credentialFor(world: World, row: RouteRow, user: TestUser): Promise<string | undefined> {
    if (row.auth === 'public' || row.auth === 'webhook') {
        return undefined;
    }

    if (row.auth === 'key') {
        return keyFor(world, user, row.scope ? [row.scope] : ['projects:read']);
    }

    return (await login(world.server, user)).session;
}

/** A credential with every right the user has: all scopes for key rows, a session otherwise. */
export async function strongestFor(world: World, row: RouteRow, user: TestUser): Promise<string | undefined> {
    if (row.auth === 'key') {
        return keyFor(world, user, SCOPES);
    }

    return credentialFor(world, row, user);
}

export interface Filled {
    request: ServerInjectOptions;
    refs: Map<string, string>;                                  // values that name the owner's resources
}

/** Makes the row's fixtures as the owner and fills its example into a request. */
export async function fill(world: World, row: CompiledRow): Promise<Filled> {
    const refs = new Map<string, string>([['project', world.owner.projectId]]);
    for (const name of row.example?.setup ?? []) {
        refs.set(name, await makeFixture(world, name, refs));
    }

    const values = await placeholderValues(world, row.example, refs);
    const example = row.example ?? {};
    let path = row.path;
    for (const [param, template] of Object.entries(example.params ?? {})) {
        path = path.replace(`{${param}}`, encodeURIComponent(substitute(template, values) as string));
    }

    const query = example.query ? new URLSearchParams(substitute(example.query, values) as Record<string, string>).toString() : '';
    return {
        request: {
            method: row.method,
            url: query ? `${path}?${query}` : path,
            ...(example.payload !== undefined ? { payload: substitute(example.payload, values) as object } : {}),
            // A multipart body stays as its parts (text, so placeholders can be swapped) until it is sent (withAuth).
            ...(example.form ? { payload: { [FORM]: substitute(example.form, values) } } : {})
        },
        refs
    };
}

const FORM = '__multipartForm';

/** A multipart/form-data body from an example's parts (JSON values, or files given in base64). */
export function multipartBody(parts: readonly ExamplePart[]): { payload: Buffer; contentType: string } {
    const boundary = `----hostless${Crypto.randomBytes(8).toString('hex')}`;
    const chunks: Buffer[] = [];
    for (const part of parts) {
        const file = part.base64 !== undefined;
        chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${file ? `; filename="${part.filename ?? 'file'}"` : ''}\r\n` +
            `Content-Type: ${file ? part.contentType ?? 'application/octet-stream' : 'application/json'}\r\n\r\n`));
        chunks.push(file ? Buffer.from(part.base64!, 'base64') : Buffer.from(JSON.stringify(part.json)));
        chunks.push(Buffer.from('\r\n'));
    }

    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function makeFixture(world: World, name: string, refs: Map<string, string>): Promise<string> {
    const fixture = world.fixtures[name];
    if (!fixture) {
        throw new Error(`unknown fixture ${name}`);
    }

    if (fixture.seed) {
        const seeder = SEEDERS[fixture.seed];
        if (!seeder) {
            throw new Error(`fixture ${name} names an unknown seeder ${fixture.seed}`);
        }

        return seeder(world.server, world.owner);
    }

    const row = { example: { params: fixture.params, payload: fixture.payload } } as unknown as CompiledRow;
    const values = await placeholderValues(world, row.example, refs);
    const route = world.server.table().find((r) => r.settings.id === fixture.route);
    if (!route) {
        throw new Error(`fixture ${name} needs route ${fixture.route}, which is not mounted`);
    }

    // A fixture made by someone else than the owner: a fresh account, whose own project the fixture may name.
    const maker = fixture.by === 'stranger' ? await register(world.server, 'stranger') : world.owner;
    values.strangerProject = maker.projectId;
    let path = route.path;
    for (const [param, template] of Object.entries(fixture.params ?? {})) {
        path = path.replace(`{${param}}`, substitute(template, values) as string);
    }

    const payload = fixture.payload !== undefined ? substitute(fixture.payload, values) as Record<string, unknown> : undefined;
    const session = (await login(world.server, maker)).session;
    const call = () => world.server.inject({
        method: route.method.toUpperCase(), url: path, headers: { authorization: session },
        ...(payload !== undefined ? { payload } : {})
    });
    let res = await call();
    if (fixture.until) {
        // Background work runs only here, while a fixture waits for it: during a case the database holds still.
        const { queue } = world.server.plugins['hostless-jobs'];
        queue.start();
        try {
            for (let tries = 0; (res.result as any)?.[fixture.until.field] !== fixture.until.equals; ++tries) {
                if (tries > 500) {
                    throw new Error(`fixture ${name} never reached ${fixture.until.field} = ${fixture.until.equals}: ${res.payload}`);
                }

                await new Promise((resolve) => setTimeout(resolve, 20));
                res = await call();
            }
        }
        finally {
            await queue.stop();
        }
    }

    if (res.statusCode >= 300) {
        throw new Error(`fixture ${name} failed: ${res.statusCode} ${res.payload}`);
    }

    const answer = fixture.invitation ? await answerInvitation(world, fixture.invitation, payload?.email as string, maker.id) : res.result;
    const value = fixture.value.split('.').reduce((found: any, key: string) => found?.[key], answer) as string;
    if (fixture.project) {
        const viewer = await login(world.server, world.viewer);
        await joinProject(world.server, await login(world.server, world.owner), value, { email: world.viewer.email, session: viewer.session }, 'viewer');
    }

    return value;
}

/** The invitation a fixture sent, found in the invited account's list: as it is (`pending`) or as accepted. */
async function answerInvitation(world: World, how: 'pending' | 'accepted', email: string, inviterId: string): Promise<unknown> {
    const invitee = await login(world.server, { email, password: PASSWORD });
    const listed = await world.server.inject({ method: 'GET', url: '/v1/users/me/invitations', headers: { authorization: invitee.session } });
    const invitation = (listed.result as Array<{ id: string; invitedBy: { userId: string } | null }>).find((candidate) => candidate.invitedBy?.userId === inviterId);
    if (!invitation) {
        throw new Error(`${email} received no invitation: ${listed.payload}`);
    }

    if (how === 'pending') {
        return invitation;
    }

    const accepted = await world.server.inject({ method: 'POST', url: `/v1/users/me/invitations/${invitation.id}/accept`, headers: { authorization: invitee.session } });
    if (accepted.statusCode !== 200) {
        throw new Error(`${email} could not accept the invitation: ${accepted.payload}`);
    }

    return accepted.result;
}

async function placeholderValues(world: World, example: RouteRow['example'], refs: Map<string, string>): Promise<Record<string, string>> {
    const text = JSON.stringify(example ?? {});
    const values: Record<string, string> = Object.fromEntries(refs);
    const wanted = (name: string) => text.includes(`{${name}}`);
    values.unique = uniqueName('x');
    values.email = uniqueEmail('new');
    values.ownerEmail = world.owner.email;
    values.ownerId = world.owner.id;
    values.ownerPassword = world.owner.password;
    if (wanted('spareEmail')) {
        values.spareEmail = (await register(world.server, 'spare')).email;
    }

    if (wanted('sshPublicKey')) {
        values.sshPublicKey = sshPublicKey();
    }

    if (wanted('refreshToken')) {
        values.refreshToken = (await login(world.server, world.owner)).refreshToken;
    }

    return values;
}

function substitute(value: unknown, values: Record<string, string>): unknown {
    if (typeof value === 'string') {
        return value.replace(/{(\w+)}/g, (match, name: string) => values[name] ?? match);
    }

    if (Array.isArray(value)) {
        return value.map((item) => substitute(item, values));
    }

    if (value && typeof value === 'object') {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, values)]));
    }

    return value;
}

/** The same request with every reference to the owner's resources replaced by one that exists nowhere. */
export function missingVariant(filled: Filled): ServerInjectOptions {
    let text = JSON.stringify(filled.request);
    for (const value of filled.refs.values()) {
        text = text.split(value).join(nonexistent(value));
    }

    return JSON.parse(text);
}

export function referencesOwner(filled: Filled): boolean {
    const text = JSON.stringify(filled.request);
    return [...filled.refs.values()].some((value) => text.includes(value));
}

/** A value of the same shape (an id with its prefix, an email, a hostname, a name) that names nothing. */
function nonexistent(value: string): string {
    const id = /^([a-z]+)_[0-9A-Za-z]{16}$/.exec(value);
    if (id) {
        return `${id[1]}_${randomBase62(16)}`;
    }

    const missing = `missing-${Crypto.randomBytes(4).toString('hex')}`;
    const separator = /[@.]/.exec(value);
    return separator ? `${missing}${value.slice(separator.index)}` : missing;
}

export function withAuth(request: ServerInjectOptions, authorization: string | undefined): ServerInjectOptions {
    const parts = (request.payload as Record<string, unknown> | undefined)?.[FORM] as ExamplePart[] | undefined;
    const form = parts ? multipartBody(parts) : null;
    return {
        ...request,
        ...(form ? { payload: form.payload } : {}),
        headers: { ...request.headers, ...(form ? { 'content-type': form.contentType } : {}), ...(authorization ? { authorization } : {}) }
    };
}

export async function send(server: Server, request: ServerInjectOptions, authorization?: string): Promise<ServerInjectResponse<any>> {
    return server.inject(withAuth(request, authorization));
}

/** Well-formed tokens that must all be refused: unknown prefix, a real prefix with the wrong secret, a bad checksum. */
export function forgedKeys(realToken: string): Record<string, string> {
    const [, prefix, secret] = realToken.split('_') as [string, string, string];
    const body = randomBase62(43);
    const unknownPrefix = randomBase62(10);
    const lastChar = secret.slice(-1);
    return {
        'an unknown prefix': `svk_${unknownPrefix}_${body}${checksum(unknownPrefix, body)}`,
        'a wrong secret': `svk_${prefix}_${body}${checksum(prefix, body)}`,
        'a bad checksum': `svk_${prefix}_${secret.slice(0, -1)}${lastChar === 'a' ? 'b' : 'a'}`
    };
}

export const MALFORMED_HEADERS = ['Basic dXNlcjpwYXNzd29yZA==', 'Bearer', 'Bearer ', 'svk_', 'svk_abc_def', 'Bearer not-a-token', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'Token svk_x'];
