import type { RouteTable } from '../../lib/route-table';
import { dashboardGitRows } from './dashboard-git';
import { dashboardOAuthRows } from './dashboard-oauth';
import { dashboardResourceRows } from './dashboard-resources';
import { dashboardAccountRows } from './dashboard-account';
import { form, page, signedOut } from './dashboard-rows';

// The dashboard's pages and the docs site. They are `public` to the access pipeline (whose credentials are
// Authorization headers only): pages keep their own encrypted cookie session and call the REST API in-process with
// its access token, so every rule is the API's.
const project = { projectId: '{project}' };
const member = { projectId: '{project}', userId: 'usr_0000000000000000' };
const invitation = { invitationId: 'inv_0000000000000000' };
const sent = { projectId: '{project}', invitationId: 'inv_0000000000000000' };

export const dashboardTable: RouteTable = {
    family: 'dashboard',
    rows: [
        page('dashboard.root', '/', 'Redirects to the dashboard.'),
        page('dashboard.home', '/dashboard', 'The dashboard: the projects page when signed in, else the sign-in page.'),
        page('dashboard.signIn', '/dashboard/sign-in', 'Sign-in form.', { status: 200 }),
        form('dashboard.signIn.submit', '/dashboard/sign-in', 'Sign in through `POST /v1/auth/login`; opens the cookie session.'),
        page('dashboard.signUp', '/dashboard/sign-up', 'Sign-up form.', { status: 200 }),
        form('dashboard.signUp.submit', '/dashboard/sign-up', 'Create an account through `POST /v1/auth/register`; opens the cookie session.'),
        form('dashboard.signOut', '/dashboard/sign-out', 'End the session through `POST /v1/auth/logout` and clear the cookie.'),
        page('dashboard.keys', '/dashboard/keys', 'The signed-in user\'s API keys.'),
        page('dashboard.keys.new', '/dashboard/keys/new', 'The form to create an API key: name, scopes by resource, optional expiry.'),
        form('dashboard.keys.create', '/dashboard/keys', 'Create an API key; the answer shows its token once.'),
        page('dashboard.keys.revokeConfirm', '/dashboard/keys/{keyId}/revoke', 'Asks to confirm the revocation of a key.', { ...signedOut, params: { keyId: 'key_0000000000000000' } }),
        form('dashboard.keys.revoke', '/dashboard/keys/{keyId}/revoke', 'Revoke a key.', { keyId: 'key_0000000000000000' }),
        page('dashboard.projects', '/dashboard/projects', 'Projects the user is a member of, and a form to create one.'),
        form('dashboard.projects.create', '/dashboard/projects', 'Create a team project.'),
        page('dashboard.project', '/dashboard/projects/{projectId}', 'One project: rename, members and roles, resources at a glance.', { ...signedOut, params: project }),
        form('dashboard.project.apps.create', '/dashboard/projects/{projectId}/apps', 'Create an app in a project; then its page.', project),
        form('dashboard.project.rename', '/dashboard/projects/{projectId}/rename', 'Rename a project.', project),
        form('dashboard.members.invite', '/dashboard/projects/{projectId}/members', 'Invite someone by the email of their account, with a role.', project),
        form('dashboard.members.role', '/dashboard/projects/{projectId}/members/{userId}/role', 'Change a member\'s role.', member),
        page('dashboard.members.removeConfirm', '/dashboard/projects/{projectId}/members/{userId}/remove', 'Asks to confirm the removal of a member.', { ...signedOut, params: member }),
        form('dashboard.members.remove', '/dashboard/projects/{projectId}/members/{userId}/remove', 'Remove a member.', member),
        form('dashboard.members.invitations.cancel', '/dashboard/projects/{projectId}/invitations/{invitationId}/cancel', 'Withdraw an invitation the project sent.', sent),
        page('dashboard.project.leaveConfirm', '/dashboard/projects/{projectId}/leave', 'Asks to confirm leaving a project.', { ...signedOut, params: project }),
        form('dashboard.project.leave', '/dashboard/projects/{projectId}/leave', 'Leave a project.', project),
        page('dashboard.billing', '/dashboard/billing', 'Usage this cycle, invoices with their receipts, and credit.'),
        page('dashboard.billing.receipt', '/dashboard/billing/invoices/{invoiceId}/receipt', 'The printable receipt of a paid invoice.', { ...signedOut, params: { invoiceId: 'inv_0000000000000000' } }),
        page('dashboard.invitations', '/dashboard/invitations', 'Invitations to the user, to a project or to work on an app, each accepted or declined here.'),
        form('dashboard.invitations.accept', '/dashboard/invitations/{invitationId}/accept', 'Accept an invitation.', invitation),
        form('dashboard.invitations.decline', '/dashboard/invitations/{invitationId}/decline', 'Decline (or dismiss) an invitation.', invitation),
        page('dashboard.notifications', '/dashboard/account/notifications', 'The notification categories the user receives, security messages always on.'),
        form('dashboard.notifications.save', '/dashboard/account/notifications', 'Save which notification categories the user receives.'),
        ...dashboardGitRows,
        ...dashboardAccountRows,
        ...dashboardResourceRows,
        page('dashboard.assets', '/dashboard/assets/{file*}', 'The dashboard\'s stylesheet and script.', { status: 200, params: { 'file*': 'dashboard.css' } }),
        page('dashboard.notFound', '/dashboard/{path*}', 'Any other dashboard path: a 404 page.', { status: 404, params: { 'path*': 'nowhere' } }),
        page('docs.index', '/docs', 'The documentation\'s index page.', { status: 200 }),
        page('docs.search', '/docs/search', 'Ranked full-text search over the documentation (`?q=`).', { status: 200, query: { q: 'api key' } }),
        page('docs.page', '/docs/{path*}', 'A documentation page: `docs/<path>.md` rendered.', { status: 200, params: { 'path*': 'authentication' } }),
        ...dashboardOAuthRows
    ]
};
