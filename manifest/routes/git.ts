import { keyRoute as r, type RouteTable } from '../../lib/route-table';

const admin = { policy: { role: 'admin' as const } };

// A project's Git provider connections (GitHub, GitLab, Bitbucket): accounts, repositories, disconnects.
export const gitTable: RouteTable = {
    family: 'git',
    rows: [
        r('git.connectedAccounts', 'GET', '/projects/{projectId}/connected-accounts', 'projects:read', 'Git provider accounts connected to a project.'),
        r('git.github.accounts', 'GET', '/projects/{projectId}/github/accounts', 'git:read', 'GitHub accounts and organisations reachable through the connection.'),
        r('git.github.repos', 'GET', '/projects/{projectId}/github/accounts/{accountLogin}/repos', 'git:read', 'Repositories of a GitHub account.'),
        r('git.gitlab.repos', 'GET', '/projects/{projectId}/gitlab/repos', 'git:read', 'Repositories reachable through the GitLab connection.'),
        r('git.bitbucket.workspaces', 'GET', '/projects/{projectId}/bitbucket/workspaces', 'git:read', 'Bitbucket workspaces reachable through the connection.'),
        r('git.bitbucket.repos', 'GET', '/projects/{projectId}/bitbucket/workspaces/{workspace}/repos', 'git:read', 'Repositories of a Bitbucket workspace.'),
        r('git.github.disconnect', 'DELETE', '/projects/{projectId}/github/disconnect', 'git:write', 'Disconnect GitHub from a project.', admin),
        r('git.gitlab.disconnect', 'DELETE', '/projects/{projectId}/gitlab/disconnect', 'git:write', 'Disconnect GitLab from a project.', admin),
        r('git.bitbucket.disconnect', 'DELETE', '/projects/{projectId}/bitbucket/disconnect', 'git:write', 'Disconnect Bitbucket from a project.', admin)
    ]
};
