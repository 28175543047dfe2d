import type { RouteRow } from '../../lib/route-table';
import { form, page, signedOut } from './dashboard-rows';

// The dashboard's OAuth pages: the consent screen the authorization endpoint sends the browser to, and, in the account
// area, the connected AI apps and the user's OAuth clients.
const grant = { grantId: 'ogr_0000000000000000' };
const client = { clientId: 'svoc_0000000000000000' };

export const dashboardOAuthRows: readonly RouteRow[] = [
    page('dashboard.consent', '/oauth/authorize', 'The consent screen: which app asks, for which read-only scopes, in which projects; allow or deny.', { ...signedOut, query: { authorization: 'oaz_0000000000000000' } }),
    form('dashboard.consent.decide', '/oauth/authorize', 'Allow (all projects or the chosen ones) or deny; sends the browser back to the app.'),
    page('dashboard.connectedApps', '/dashboard/account/connected-apps', 'AI apps connected through OAuth, with what and where they may read.'),
    form('dashboard.connectedApps.revoke', '/dashboard/account/connected-apps/{grantId}/revoke', 'Disconnect an AI app: refused from its next request.', grant),
    page('dashboard.oauthClients', '/dashboard/account/oauth-clients', 'Your OAuth clients for custom connectors.'),
    page('dashboard.oauthClients.new', '/dashboard/account/oauth-clients/new', 'The form to register an OAuth client: a name and its redirect URIs.'),
    form('dashboard.oauthClients.create', '/dashboard/account/oauth-clients', 'Register an OAuth client; the answer shows its secret once.'),
    page('dashboard.oauthClients.deleteConfirm', '/dashboard/account/oauth-clients/{clientId}/delete', 'Asks to confirm the deletion of an OAuth client.', { ...signedOut, params: client }),
    form('dashboard.oauthClients.delete', '/dashboard/account/oauth-clients/{clientId}/delete', 'Delete an OAuth client and disconnect every app using it.', client)
];
