import { GIT_PROVIDERS, PROVIDER_LABELS } from '../../lib/git/provider';
import { keyRoute as r, type RouteRow, type RouteTable } from '../../lib/route-table';

const admin = { policy: { role: 'admin' as const } };
const project = { projectId: '{project}' };
// Without a connection (made by the connect flow, through a host), 409 is the honest answer of the reads and 404
// of the disconnects; the Git behaviour tests run every route against a fake of each host.
const unconnected = { params: project, status: 409 };

/** The connect flow of a host (api-contract.md section 11): session only; the host sends the browser to the dashboard. */
const connectRows = (): RouteRow[] => GIT_PROVIDERS.flatMap((provider): RouteRow[] => [
    {
        id: `git.${provider}.connect`, method: 'GET', path: `/v1/${provider}/connect`, auth: 'session',
        policy: { project: 'query', role: 'admin' },
        description: `Start connecting ${PROVIDER_LABELS[provider]} to a project (\`?projectId=\`, admin or owner): answers the address to send the browser to.`,
        example: { query: project }
    },
    {
        id: `git.${provider}.callback`, method: 'POST', path: `/v1/${provider}/callback`, auth: 'session',
        description: `Complete the connection with the \`code\` and \`state\` ${PROVIDER_LABELS[provider]} sent back; a used, expired or foreign state is 400.`,
        example: { payload: { code: 'an-authorization-code', state: '0123456789abcdefghijABCDEFGHIJ01' }, status: 400 }
    }
]);

// A project's Git provider connections (GitHub, GitLab, Bitbucket): accounts, repositories, disconnects, and the
// connect flow.
export const gitTable: RouteTable = {
    family: 'git',
    rows: [
        r('git.connectedAccounts', 'GET', '/projects/{projectId}/connected-accounts', 'projects:read', 'Git provider accounts connected to a project.', { example: { params: project } }),
        r('git.github.accounts', 'GET', '/projects/{projectId}/github/accounts', 'git:read', 'GitHub accounts and organisations reachable through the connection.', { example: unconnected }),
        r('git.github.repos', 'GET', '/projects/{projectId}/github/accounts/{accountLogin}/repos', 'git:read', 'Repositories of a GitHub account.', { example: { ...unconnected, params: { ...project, accountLogin: 'octo-dev' } } }),
        r('git.gitlab.repos', 'GET', '/projects/{projectId}/gitlab/repos', 'git:read', 'Repositories reachable through the GitLab connection.', { example: unconnected }),
        r('git.bitbucket.workspaces', 'GET', '/projects/{projectId}/bitbucket/workspaces', 'git:read', 'Bitbucket workspaces reachable through the connection.', { example: unconnected }),
        r('git.bitbucket.repos', 'GET', '/projects/{projectId}/bitbucket/workspaces/{workspace}/repos', 'git:read', 'Repositories of a Bitbucket workspace.', { example: { ...unconnected, params: { ...project, workspace: 'acme' } } }),
        r('git.github.disconnect', 'DELETE', '/projects/{projectId}/github/disconnect', 'git:write', 'Disconnect GitHub from a project.', { ...admin, example: { params: project, status: 404 } }),
        r('git.gitlab.disconnect', 'DELETE', '/projects/{projectId}/gitlab/disconnect', 'git:write', 'Disconnect GitLab from a project.', { ...admin, example: { params: project, status: 404 } }),
        r('git.bitbucket.disconnect', 'DELETE', '/projects/{projectId}/bitbucket/disconnect', 'git:write', 'Disconnect Bitbucket from a project.', { ...admin, example: { params: project, status: 404 } }),
        ...connectRows()
    ]
};
