import type { RouteRow } from '../../lib/route-table';
import { form, page, signedOut } from './dashboard-rows';

// The dashboard's Git pages: a project's connections with their connect and disconnect buttons, and the page a Git
// host sends the browser back to, which completes the connection through POST /v1/{provider}/callback.
const project = { projectId: '{project}' };
const host = { projectId: '{project}', provider: 'github' };

export const dashboardGitRows: readonly RouteRow[] = [
    page('dashboard.git', '/dashboard/projects/{projectId}/git', 'A project\'s Git connections: connect, reconnect or disconnect GitHub, GitLab and Bitbucket.', { ...signedOut, params: project }),
    form('dashboard.git.connect', '/dashboard/projects/{projectId}/git/{provider}/connect', 'Start connecting a Git host: sends the browser to the host to approve.', host),
    form('dashboard.git.disconnect', '/dashboard/projects/{projectId}/git/{provider}/disconnect', 'Disconnect a Git host from the project (its token is deleted, and revoked where the host allows).', host),
    page('dashboard.git.callback', '/dashboard/git/{provider}/callback', 'Where a Git host sends the browser back with a code and the state: completes the connection.', {
        ...signedOut, params: { provider: 'github' }, query: { code: 'an-authorization-code', state: '0123456789abcdefghijABCDEFGHIJ01' }
    })
];
