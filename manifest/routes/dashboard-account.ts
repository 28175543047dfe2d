import type { RouteRow } from '../../lib/route-table';
import { form, page } from './dashboard-rows';

// The account pages: profile and password, sessions, the security trail, SSH keys, and the AI agent setup page.
export const dashboardAccountRows: RouteRow[] = [
    page('dashboard.account', '/dashboard/account', 'The signed-in user\'s profile, with forms for their name and password.'),
    form('dashboard.account.profile', '/dashboard/account/profile', 'Change the user\'s name.'),
    form('dashboard.account.password', '/dashboard/account/password', 'Change the password with the current one; every other session ends.'),
    page('dashboard.account.sessions', '/dashboard/account/sessions', 'The user\'s live sessions, each signed out here, and "sign out everywhere".'),
    form('dashboard.account.sessions.revoke', '/dashboard/account/sessions/{sessionId}/revoke', 'Sign one session out.', { sessionId: 'ses_0000000000000000' }),
    form('dashboard.account.sessions.revokeOthers', '/dashboard/account/sessions/revoke-others', 'Sign out every other session (`everywhere=this-too`: this one as well).'),
    page('dashboard.account.security', '/dashboard/account/security', 'The user\'s security trail, newest first, page by page.'),
    page('dashboard.account.sshKeys', '/dashboard/account/ssh-keys', 'The user\'s SSH keys, with a form to add one.'),
    form('dashboard.account.sshKeys.add', '/dashboard/account/ssh-keys', 'Add an SSH public key.'),
    form('dashboard.account.sshKeys.remove', '/dashboard/account/ssh-keys/{id}/remove', 'Remove an SSH key.', { id: 'ssh_0000000000000000' }),
    page('dashboard.account.agents', '/dashboard/account/agents', 'Copy-paste MCP configuration for Claude Code, Claude Desktop, Cursor and VS Code, from this server\'s addresses.')
];
