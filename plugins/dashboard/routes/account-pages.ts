import * as Path from 'node:path';

import Joi from 'joi';

import type { RouteHandlers } from '../../../lib/route-table';
import { fields } from '../../../lib/validation';
import { apiError, listUrl, nextCursor, required } from '../api';
import { formSchema, text } from '../forms';
import { page, type Page, type PageDeps } from '../page';

// The account pages: profile and password (/v1/users/me), sessions (/v1/users/me/sessions) with "sign out
// everywhere", the security trail (/v1/users/me/security-events, paged), SSH keys (/v1/users/me/ssh-keys), and the
// page that writes an AI agent's MCP configuration from this server's own addresses.

interface Profile {
    id: string;
    email: string;
    name: string | null;
    createdAt?: string;
}

interface SessionRow {
    id: string;
    current: boolean;
    createdAt: string;
    expiresAt: string;
    lastRefreshedAt: string | null;
    ip: string | null;
    method: string | null;
}

interface SshKey {
    id: string;
    name: string | null;
    fingerprint: string;
    createdAt: string;
}

export interface AgentSettings {
    publicUrl: string;
    mcpPublicUrl: string;
}

// The stdio entry point as `npm run build` leaves it, wherever this server runs from.
const STDIO = __dirname.split(Path.sep).includes('dist')
    ? Path.resolve(__dirname, '..', '..', '..', 'manifest', 'stdio.js')
    : Path.resolve(__dirname, '..', '..', '..', 'dist', 'manifest', 'stdio.js');

const KEY = 'svk_...';

/** The copy-paste configurations of the agent page: each client's own format, from this server's addresses. */
export function agentConfigs(settings: AgentSettings, stdioPath = STDIO) {
    const mcp = `${settings.mcpPublicUrl}/mcp`;
    const docs = `${settings.mcpPublicUrl}/mcp/docs`;
    const env = { APP_TOKEN: KEY, API_BASE_URL: settings.publicUrl };
    const stdio = { command: 'node', args: [stdioPath], env };
    const json = (value: unknown) => JSON.stringify(value, null, 2);
    return [
        {
            id: 'claude-code', name: 'Claude Code', where: 'Run in a terminal.',
            http: `claude mcp add --transport http hostless ${mcp} --header "Authorization: Bearer ${KEY}"\nclaude mcp add --transport http hostless-docs ${docs}`,
            stdio: `claude mcp add hostless-local --env APP_TOKEN=${KEY} --env API_BASE_URL=${settings.publicUrl} -- node ${stdioPath}`
        },
        {
            id: 'claude-desktop', name: 'Claude Desktop', where: `In claude_desktop_config.json (Settings, Developer, Edit config). Claude Desktop starts servers as processes: over HTTP through the mcp-remote bridge, or this server's stdio mode. A custom connector with the address ${mcp} signs in here through OAuth instead, with read-only access.`,
            // Claude Desktop reaches remote servers with a key through the mcp-remote bridge; connectors use OAuth instead.
            http: json({ mcpServers: { hostless: { command: 'npx', args: ['-y', 'mcp-remote', mcp, '--header', `Authorization: Bearer ${KEY}`] } } }),
            stdio: json({ mcpServers: { hostless: stdio } })
        },
        {
            id: 'cursor', name: 'Cursor', where: 'In ~/.cursor/mcp.json, or .cursor/mcp.json in a project.',
            http: json({ mcpServers: { hostless: { url: mcp, headers: { Authorization: `Bearer ${KEY}` } }, 'hostless-docs': { url: docs } } }),
            stdio: json({ mcpServers: { 'hostless-local': stdio } })
        },
        {
            id: 'vscode', name: 'VS Code', where: 'In .vscode/mcp.json.',
            http: json({ servers: { hostless: { type: 'http', url: mcp, headers: { Authorization: `Bearer ${KEY}` } } } }),
            stdio: json({ servers: { 'hostless-local': { type: 'stdio', ...stdio } } })
        }
    ];
}

const describeEvent = (event: { type: string; data: Record<string, unknown> }) =>
    Object.entries(event.data ?? {}).map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') : String(value)}`).join(' · ');

export function accountPageRoutes(deps: PageDeps, agents: AgentSettings): RouteHandlers {
    const signedIn = { signedIn: true };
    const ME = '/v1/users/me';

    const profilePage = async (p: Page, extra: Record<string, unknown> = {}, status = 200) => {
        const me = required(await p.api.call<Profile>('GET', ME));
        return p.view('account', { title: 'Your account', me, section: 'profile', ...extra }, status);
    };

    const sessionsPage = async (p: Page, extra: Record<string, unknown> = {}, status = 200) => {
        const sessions = required(await p.api.call<SessionRow[]>('GET', `${ME}/sessions`));
        return p.view('account-sessions', { title: 'Sessions', sessions, others: sessions.filter((session) => !session.current).length, section: 'sessions', ...extra }, status);
    };

    const sshPage = async (p: Page, extra: Record<string, unknown> = {}, status = 200) => {
        const keys = required(await p.api.call<SshKey[]>('GET', `${ME}/ssh-keys`));
        return p.view('account-ssh-keys', { title: 'SSH keys', keys, section: 'ssh', ...extra }, status);
    };

    return {
        'dashboard.account': {
            handler: page(deps, (p) => profilePage(p), signedIn)
        },
        'dashboard.account.profile': {
            validate: { payload: formSchema({ name: text(128) }) },
            handler: page(deps, async (p) => {
                const { name } = p.request.payload as { name: string };
                const answer = await p.api.call<Profile>('PATCH', ME, { name });
                if (answer.status === 200) {
                    p.session.signIn(p.session.tokens!, { id: answer.body.id, email: answer.body.email, name: answer.body.name });
                    return p.redirect('/dashboard/account', 'Your name is saved.');
                }

                return profilePage(p, { error: apiError(answer).message }, answer.status);
            }, signedIn)
        },
        'dashboard.account.password': {
            validate: { payload: formSchema({ currentPassword: text(256), password: text(256) }) },
            handler: page(deps, async (p) => {
                const { currentPassword, password } = p.request.payload as { currentPassword: string; password: string };
                const answer = await p.api.call('PATCH', ME, { currentPassword, password });
                if (answer.status === 200) {
                    return p.redirect('/dashboard/account', 'Your password is changed; every other session is signed out.');
                }

                return profilePage(p, { error: apiError(answer).message }, answer.status);
            }, signedIn)
        },
        'dashboard.account.sessions': {
            handler: page(deps, (p) => sessionsPage(p), signedIn)
        },
        'dashboard.account.sessions.revoke': {
            validate: { params: Joi.object({ sessionId: fields.id('ses').required() }), payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const answer = await p.api.call('DELETE', `${ME}/sessions/${encodeURIComponent(p.request.params.sessionId as string)}`);
                if (answer.status === 204) {
                    return p.redirect('/dashboard/account/sessions', 'That session is signed out: it is refused from its next request.');
                }

                return sessionsPage(p, { error: apiError(answer).message }, answer.status);
            }, signedIn)
        },
        'dashboard.account.sessions.revokeOthers': {
            validate: { payload: formSchema({ everywhere: Joi.string().valid('this-too') }) },
            handler: page(deps, async (p) => {
                const answer = await p.api.call<{ signedOut: number }>('POST', `${ME}/sessions/revoke-others`);
                if (answer.status !== 200) {
                    return sessionsPage(p, { error: apiError(answer).message }, answer.status);
                }

                if ((p.request.payload as { everywhere?: string }).everywhere === 'this-too') {
                    await p.api.call('POST', '/v1/auth/logout');
                    p.session.clear();
                    return p.h.redirect('/dashboard/sign-in?reason=signed-out');
                }

                const count = answer.body.signedOut;
                return p.redirect('/dashboard/account/sessions', count === 1 ? 'One other session is signed out.' : `${count} other sessions are signed out.`);
            }, signedIn)
        },
        'dashboard.account.security': {
            validate: { query: Joi.object({ cursor: text(40) }) },
            handler: page(deps, async (p) => {
                const cursor = (p.request.query as { cursor?: string }).cursor;
                const answer = await p.api.call<Array<{ id: string; type: string; actor: string; credentialId: string | null; ip: string | null; data: Record<string, unknown>; createdAt: string }>>('GET', listUrl(`${ME}/security-events`, cursor));
                const events = required(answer).map((event) => ({ ...event, summary: describeEvent(event) }));
                return p.view('account-security', { title: 'Security trail', events, next: nextCursor(answer), first: !cursor, section: 'security' });
            }, signedIn)
        },
        'dashboard.account.sshKeys': {
            handler: page(deps, (p) => sshPage(p), signedIn)
        },
        'dashboard.account.sshKeys.add': {
            validate: { payload: formSchema({ name: text(128), publicKey: text(16_384) }) },
            handler: page(deps, async (p) => {
                const { name, publicKey } = p.request.payload as { name: string; publicKey: string };
                const answer = await p.api.call<SshKey>('POST', `${ME}/ssh-keys`, { ...(name ? { name } : {}), publicKey });
                if (answer.status === 201) {
                    return p.redirect('/dashboard/account/ssh-keys', `The key ${answer.body.fingerprint} is added.`);
                }

                return sshPage(p, { error: apiError(answer).message, name, publicKey }, answer.status);
            }, signedIn)
        },
        'dashboard.account.sshKeys.remove': {
            validate: { params: Joi.object({ id: Joi.string().max(64).required() }), payload: formSchema({}) },
            handler: page(deps, async (p) => {
                const answer = await p.api.call('DELETE', `${ME}/ssh-keys/${encodeURIComponent(p.request.params.id as string)}`);
                if (answer.status === 204) {
                    return p.redirect('/dashboard/account/ssh-keys', 'The SSH key is removed.');
                }

                return sshPage(p, { error: apiError(answer).message }, answer.status);
            }, signedIn)
        },
        'dashboard.account.agents': {
            handler: page(deps, async (p) => p.view('account-agents', {
                title: 'Connect an AI agent', section: 'agents', configs: agentConfigs(agents), mcpUrl: `${agents.mcpPublicUrl}/mcp`, docsUrl: `${agents.mcpPublicUrl}/mcp/docs`
            }), signedIn)
        }
    };
}
