import * as Crypto from 'node:crypto';

import type { Server, ServerInjectOptions, ServerInjectResponse } from '@hapi/hapi';

import type { Scope } from '../../lib/scopes';

// Callers that go through the API itself: register, sign in, mint keys; no shortcut to the data.
let counter = 0;

export function uniqueEmail(tag = 'user'): string {
    return `${tag}-${process.pid}-${++counter}-${Crypto.randomBytes(3).toString('hex')}@example.test`;
}

export function uniqueName(tag = 'n'): string {
    return `${tag}-${Crypto.randomBytes(5).toString('hex')}`;
}

export const PASSWORD = 'correct horse battery staple';

export interface TestUser {
    id: string;
    email: string;
    password: string;
    accessToken: string;
    refreshToken: string;
    projectId: string;                                          // the personal project
    session: string;                                            // `Bearer <accessToken>`
}

export async function inject(server: Server, options: ServerInjectOptions): Promise<ServerInjectResponse<any>> {
    return server.inject(options);
}

export async function register(server: Server, tag = 'user'): Promise<TestUser> {
    const email = uniqueEmail(tag);
    const res = await server.inject({ method: 'POST', url: '/v1/auth/register', payload: { email, password: PASSWORD, name: tag } });
    if (res.statusCode !== 201) {
        throw new Error(`register failed: ${res.statusCode} ${res.payload}`);
    }

    const body = res.result as any;
    const projects = await server.inject({ method: 'GET', url: '/v1/projects', headers: { authorization: `Bearer ${body.accessToken}` } });
    const personal = (projects.result as any[]).find((project) => project.kind === 'personal');
    return {
        id: body.user.id,
        email,
        password: PASSWORD,
        accessToken: body.accessToken,
        refreshToken: body.refreshToken,
        projectId: personal.id,
        session: `Bearer ${body.accessToken}`
    };
}

export async function login(server: Server, user: { email: string; password: string }): Promise<{ accessToken: string; refreshToken: string; session: string }> {
    const res = await server.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: user.email, password: user.password } });
    if (res.statusCode !== 200) {
        throw new Error(`login failed: ${res.statusCode} ${res.payload}`);
    }

    const body = res.result as any;
    return { accessToken: body.accessToken, refreshToken: body.refreshToken, session: `Bearer ${body.accessToken}` };
}

export async function createKey(server: Server, user: TestUser, scopes: readonly Scope[], extra: { name?: string; expiresAt?: string | null } = {}): Promise<{ token: string; id: string }> {
    const res = await server.inject({
        method: 'POST', url: '/v1/users/me/api-keys', headers: { authorization: user.session },
        payload: { name: extra.name ?? 'test key', scopes, ...(extra.expiresAt !== undefined ? { expiresAt: extra.expiresAt } : {}) }
    });
    if (res.statusCode !== 201) {
        throw new Error(`key creation failed: ${res.statusCode} ${res.payload}`);
    }

    const body = res.result as any;
    return { token: body.token, id: body.apiKey.id };
}

/** `call(method, url, authorization?, payload?)` against a server, for tests that make many requests. */
export function caller(server: () => Server) {
    return (method: string, url: string, authorization?: string, payload?: object | string, headers: Record<string, string> = {}): Promise<ServerInjectResponse<any>> =>
        server().inject({ method, url, headers: { ...headers, ...(authorization ? { authorization } : {}) }, ...(payload !== undefined ? { payload } : {}) });
}

/** An invitation as GET /v1/users/me/invitations shows it (lib/invitations.ts). */
export interface InvitationBody {
    id: string;
    status: string;
    resourceType: string;
    resourceName: string;
    projectId: string;
    role: string | null;
    permissions: string[] | null;
    invitedBy: { userId: string; email: string; name: string } | null;
    userId: string;
    email: string;
    createdAt: string;
    expiresAt: string;
}

/** Accepts, as `user` (with their session), the newest of their invitations that `match` picks; answers the acceptance. */
export async function acceptInvitation(server: Server, user: { session: string }, match: (invitation: InvitationBody) => boolean = () => true): Promise<InvitationBody> {
    const listed = await server.inject({ method: 'GET', url: '/v1/users/me/invitations', headers: { authorization: user.session } });
    const invitation = (listed.result as InvitationBody[]).find(match);
    if (!invitation) {
        throw new Error(`no such invitation: ${listed.payload}`);
    }

    const res = await server.inject({ method: 'POST', url: `/v1/users/me/invitations/${invitation.id}/accept`, headers: { authorization: user.session } });
    if (res.statusCode !== 200) {
        throw new Error(`accepting the invitation failed: ${res.statusCode} ${res.payload}`);
    }

    return res.result as InvitationBody;
}

/** How anyone becomes a member: invited by `inviter` with a role, then accepting it, through the API. */
export async function joinProject(server: Server, inviter: { session: string }, projectId: string, user: { email: string; session: string }, role: string): Promise<void> {
    const sent = await server.inject({ method: 'POST', url: `/v1/projects/${projectId}/members`, headers: { authorization: inviter.session }, payload: { email: user.email, role } });
    if (sent.statusCode !== 202) {
        throw new Error(`the invitation failed: ${sent.statusCode} ${sent.payload}`);
    }

    await acceptInvitation(server, user, (invitation) => invitation.resourceType === 'project' && invitation.projectId === projectId);
}

/** How anyone becomes a collaborator: invited on a resource (`/v1/apps/shop`, say) with permissions, then accepting it. */
export async function collaborate(server: Server, inviter: { session: string }, resourcePath: string, user: { email: string; session: string }, permissions: readonly string[]): Promise<void> {
    const sent = await server.inject({ method: 'PATCH', url: `${resourcePath}/collaborators`, headers: { authorization: inviter.session }, payload: { email: user.email, permissions } });
    if (sent.statusCode === 200) {
        return;                                                 // a collaborator already: the permissions changed at once
    }

    if (sent.statusCode !== 202) {
        throw new Error(`the invitation failed: ${sent.statusCode} ${sent.payload}`);
    }

    const name = decodeURIComponent(resourcePath.split('/').pop()!);
    await acceptInvitation(server, user, (invitation) => invitation.resourceType !== 'project' && invitation.resourceName === name);
}
