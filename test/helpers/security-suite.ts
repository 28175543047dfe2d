import * as Code from '@hapi/code';
import type { ServerInjectOptions } from '@hapi/hapi';
import type * as Lab from '@hapi/lab';

import { PERMISSIONS, type Permission } from '../../lib/roles';
import { compileRow, type CompiledRow, type RouteTable } from '../../lib/route-table';
import { SCOPES } from '../../lib/scopes';
import { kindsOf, ROUTE_TABLES } from '../../manifest/routes';
import { gateMessages } from '../../plugins/auth/gate';
import { policyMessages } from '../../plugins/auth/policy';
import { collaborate, createKey, login, register, type TestUser } from './api';
import { digest } from './db';
import {
    createWorld, credentialFor, fill, ownerAdminFor, forgedKeys, keyFor, MALFORMED_HEADERS, missingVariant, referencesOwner, send, strongestFor, type World
} from './route-cases';
import type { TestServer } from './server';
import type { Signer } from './webhook-signers';

// Generated from the route tables: every mounted route reaches every step of the precedence from its example.
// A new row gets all of these cases without a line of test code; a kind defined outside the platform (a test
// kind, an embedder's) gets them by passing its tables and a server that mounts them.
const { expect } = Code;

const successStatus = (row: CompiledRow) => row.example?.status ?? (row.method === 'POST' && row.compiled.create ? 201 : 200);

export function securitySuite(script: Lab.script.Script, tables: readonly RouteTable[], makeServer: () => Promise<TestServer>, extraTables: readonly RouteTable[] = [],
    signers: Readonly<Record<string, Signer>> = {}): void {
    const { describe, it, before, after } = script;
    const kinds = kindsOf([...ROUTE_TABLES, ...extraTables]);
    // A webhook row's example is sent signed by its sender's fake (test/helpers/webhook-signers.ts).
    const signed = (row: CompiledRow, request: ServerInjectOptions, how: 'signed' | 'forged' = 'signed'): ServerInjectOptions => {
        if (row.auth !== 'webhook') {
            return request;
        }

        const signer = signers[row.id];
        if (!signer) {
            throw new Error(`Webhook route ${row.id} has no signer: add one to test/helpers/webhook-signers.ts`);
        }

        return signer(request, how);
    };

    for (const table of tables) {
        describe(`${table.family} routes`, () => {

            let instance: TestServer;
            let world: World;
            let expired: string;
            let revoked: string;
            let collaborator: TestUser;

            before(async () => {
                instance = await makeServer();
                world = await createWorld(instance.server, extraTables);
                collaborator = await register(instance.server, 'collaborator');
                expired = (await createKey(instance.server, world.owner, SCOPES, { name: 'to expire', expiresAt: new Date(Date.now() + 3600_000).toISOString() })).token;
                await instance.server.app.knex('api_keys').where('name', 'to expire').update({ expires_at: new Date(Date.now() - 1000).toISOString() });
                const toRevoke = await createKey(instance.server, world.owner, SCOPES, { name: 'to revoke' });
                await instance.server.inject({ method: 'DELETE', url: `/v1/users/me/api-keys/${toRevoke.id}`, headers: { authorization: world.owner.session } });
                revoked = toRevoke.token;
                await ownerAdminFor(world, table);
            });

            after(async () => {
                await instance?.stop();
            });

            const unchanged = async (action: () => Promise<void>) => {
                const before = await digest(instance.server.app.knex);
                await action();
                expect(await digest(instance.server.app.knex), 'the database changed').to.equal(before);
            };

            for (const plain of table.rows) {
                const row = compileRow(plain, kinds);
                const credentialed = row.auth !== 'public' && row.auth !== 'webhook';

                describe(`${row.id} (${row.method} ${row.path})`, () => {

                    it('answers its example with the owner\'s credential', async () => {
                        const { request } = await fill(world, row);
                        const res = await send(instance.server, signed(row, request), await credentialFor(world, row, world.owner));
                        expect(res.statusCode, res.payload).to.equal(successStatus(row));
                    });

                    if (row.method === 'GET') {
                        it('answers HEAD as it answers GET', async () => {
                            const { request } = await fill(world, row);
                            const res = await send(instance.server, { ...request, method: 'HEAD' }, await credentialFor(world, row, world.owner));
                            expect(res.statusCode).to.equal(successStatus(row));
                            expect(res.payload).to.equal('');
                            if (credentialed) {
                                expect((await send(instance.server, { ...request, method: 'HEAD' })).statusCode).to.equal(401);
                            }
                        });
                    }

                    if (row.auth === 'webhook') {
                        it('refuses an unsigned request and a mis-signed one with 401, changing nothing', async () => {
                            const { request } = await fill(world, row);
                            await unchanged(async () => {
                                for (const [label, attempt] of [['unsigned', request], ['mis-signed', signed(row, request, 'forged')]] as const) {
                                    const res = await send(instance.server, attempt);
                                    expect(res.statusCode, `${label}: ${res.payload}`).to.equal(401);
                                }
                            });
                        });
                    }

                    if (!credentialed) {
                        return;
                    }

                    it('refuses a request without credentials, before reading its body', async () => {
                        const { request } = await fill(world, row);
                        await unchanged(async () => {
                            const res = await send(instance.server, request);
                            expect(res.statusCode).to.equal(401);
                            expect(res.result).to.equal({ statusCode: 401, error: 'Unauthorized', message: 'Missing authentication' });
                            if (row.method !== 'GET') {
                                const garbled = await send(instance.server, { ...request, payload: '{"not json', headers: { 'content-type': 'application/json' } });
                                expect(garbled.statusCode).to.equal(401);
                            }
                        });
                    });

                    it('refuses malformed authorization headers', async () => {
                        const { request } = await fill(world, row);
                        await unchanged(async () => {
                            for (const header of MALFORMED_HEADERS) {
                                const res = await send(instance.server, request, header);
                                expect(res.statusCode, header).to.equal(401);
                            }
                        });
                    });

                    it('refuses an unknown prefix, a wrong secret and a bad checksum alike', async () => {
                        const { request } = await fill(world, row);
                        const real = await keyFor(world, world.owner, SCOPES);
                        await unchanged(async () => {
                            for (const [label, token] of Object.entries(forgedKeys(real))) {
                                const res = await send(instance.server, request, token);
                                expect(res.statusCode, label).to.equal(401);
                                expect(res.result.message, label).to.equal('Invalid API key');
                            }
                        });
                    });

                    it('refuses an expired key and a revoked key', async () => {
                        const { request } = await fill(world, row);
                        await unchanged(async () => {
                            const late = await send(instance.server, request, expired);
                            expect(late.statusCode).to.equal(401);
                            expect(late.result.message).to.equal('API key has expired');
                            const gone = await send(instance.server, request, `Bearer ${revoked}`);
                            expect(gone.statusCode).to.equal(401);
                            expect(gone.result.message).to.equal('API key has been revoked');
                        });
                    });

                    if (row.auth === 'key' && row.scope) {
                        it(`refuses a key without ${row.scope} with the exact message, before reading its body`, async () => {
                            const { request } = await fill(world, row);
                            const token = await keyFor(world, world.owner, SCOPES.filter((scope) => scope !== row.scope));
                            await unchanged(async () => {
                                const res = await send(instance.server, request, token);
                                expect(res.statusCode).to.equal(403);
                                expect(res.result).to.equal({ statusCode: 403, error: 'Forbidden', message: `Missing required scope(s): ${row.scope}` });
                                if (row.method !== 'GET') {
                                    const garbled = await send(instance.server, { ...request, payload: '{"not json', headers: { 'content-type': 'application/json' } }, token);
                                    expect(garbled.statusCode).to.equal(403);
                                }
                            });
                        });
                    }

                    if (row.auth === 'session' || row.auth === 'admin') {
                        it('refuses an API key: the route takes a session only', async () => {
                            const { request } = await fill(world, row);
                            const token = await keyFor(world, world.owner, SCOPES);
                            await unchanged(async () => {
                                for (const header of [token, `Bearer ${token}`]) {
                                    const res = await send(instance.server, request, header);
                                    expect(res.statusCode).to.equal(403);
                                    expect(res.result.message).to.equal(gateMessages.sessionOnly);
                                }
                            });
                        });
                    }

                    if (row.auth === 'admin') {
                        it('refuses a session that is not a platform admin\'s, changing nothing', async () => {
                            const { request } = await fill(world, row);
                            const credential = await credentialFor(world, row, world.outsider);
                            await unchanged(async () => {
                                const res = await send(instance.server, request, credential);
                                expect(res.statusCode, res.payload).to.equal(403);
                                expect(res.result.message).to.equal(gateMessages.adminOnly);
                            });
                        });
                    }

                    // Admin rows address any account by explicit id: an admin reads what is not theirs by design.
                    if (row.auth !== 'admin' && namesOwnerResources(row)) {
                        it('answers 404 for another user\'s resource, exactly as for a missing one', async () => {
                        const filled = await fill(world, row);
                        const url = filled.request.url as string;
                        const query = row.compiled.project === 'query' && !url.includes('projectId=')
                            ? { ...filled, request: { ...filled.request, url: `${url}${url.includes('?') ? '&' : '?'}projectId=${world.owner.projectId}` } }
                            : filled;
                        expect(referencesOwner(query)).to.be.true();

                        const credential = await strongestFor(world, row, world.outsider);
                        await unchanged(async () => {
                            const foreign = await send(instance.server, query.request, credential);
                            const missing = await send(instance.server, missingVariant(query), credential);
                            expect(foreign.statusCode, foreign.payload).to.equal(404);
                            expect(foreign.result).to.equal(missing.result);
                        });
                        });
                    }

                    // A change every member may make (leaving a project) has no viewer to refuse.
                    if (row.compiled.mutation && (row.compiled.project || row.compiled.resource) && row.compiled.role !== 'viewer') {
                        it('refuses a viewer\'s change and changes nothing', async () => {
                            const { request } = await fill(world, row);
                            const credential = await strongestFor(world, row, world.viewer);
                            await unchanged(async () => {
                                const res = await send(instance.server, request, credential);
                                expect(res.statusCode, res.payload).to.equal(403);
                                expect(res.result.message).to.equal(policyMessages.role(row.compiled.role));
                            });
                        });
                    }

                    const granted = collaboratorKind(row, kinds);
                    if (granted) {
                        const needed = collaboratorNeed(row);
                        if (needed === 'view') {
                            it('lets a collaborator holding only view read it', async () => {
                                const filled = await fill(world, row);
                                await grant(instance, world, granted, filled.request.url as string, row, collaborator, ['view']);
                                const res = await send(instance.server, filled.request, await strongestFor(world, row, collaborator));
                                expect(res.statusCode, res.payload).to.equal(successStatus(row));
                            });
                        }
                        else {
                            it(`refuses a collaborator without "${needed}" and changes nothing`, async () => {
                                const filled = await fill(world, row);
                                await grant(instance, world, granted, filled.request.url as string, row, collaborator, PERMISSIONS.filter((p) => p !== needed && p !== 'manage'));
                                const credential = await strongestFor(world, row, collaborator);
                                await unchanged(async () => {
                                    const res = await send(instance.server, filled.request, credential);
                                    expect(res.statusCode, res.payload).to.equal(403);
                                    expect(res.result.message).to.equal(policyMessages.collaborator(needed));
                                });
                            });
                        }
                    }
                });
            }
        });
    }
}

interface GrantedKind {
    kind: string;
    param: string;
}

/** The kind a collaborator is granted on this route (the root of its resource), when that kind allows collaborators. */
function collaboratorKind(row: CompiledRow, kinds: ReturnType<typeof kindsOf>): GrantedKind | null {
    let kind = row.compiled.resource ? kinds.find((k) => k.kind === row.compiled.resource) : undefined;
    while (kind?.parent) {
        const parent = kind.parent.kind;
        kind = kinds.find((k) => k.kind === parent);
    }

    return kind?.collaborators && row.auth === 'key' ? kind : null;
}

/** What the pipeline asks of a collaborator for the row's example (a weaker need when the body holds only those fields). */
function collaboratorNeed(row: CompiledRow): Permission {
    const weaker = row.compiled.collaboratorFor;
    const fields = Object.keys((row.example?.payload as object | undefined) ?? {});
    return weaker && fields.length && fields.every((field) => weaker[field]) ? weaker[fields[0]] : row.compiled.collaborator;
}

/**
 * Grants `permissions` on the resource the filled URL names to a user outside its project, as anyone gets a grant:
 * the owner invites them through the kind's collaborator route and they accept through the invitations API.
 */
async function grant(instance: TestServer, world: World, kind: GrantedKind, url: string, row: CompiledRow, user: TestUser, permissions: readonly Permission[]): Promise<void> {
    const segments = row.path.split('/');
    const index = segments.indexOf(`{${kind.param}}`);
    const value = decodeURIComponent(url.split('?')[0].split('/')[index]);
    const upsert = instance.server.table().find((route) => route.method === 'patch' && route.path.endsWith(`/{${kind.param}}/collaborators`));
    if (!upsert) {
        throw new Error(`no collaborator route is mounted for ${kind.kind}`);
    }

    const owner = await login(instance.server, world.owner);
    const invitee = await login(instance.server, user);
    await collaborate(instance.server, owner, upsert.path.replace(`/{${kind.param}}/collaborators`, `/${encodeURIComponent(value)}`), { email: user.email, session: invitee.session }, permissions);
}

/** Whether the example names something of the owner's: their project, a fixture, or a list narrowed by projectId. */
function namesOwnerResources(row: CompiledRow): boolean {
    const text = JSON.stringify(row.example ?? {});
    return row.compiled.project === 'query' || ['project', ...row.example?.setup ?? []].some((name) => text.includes(`{${name}}`));
}
