import type { RouteRow, RouteTable } from '../route-table';
import { SCOPE_DESCRIPTIONS, SCOPES } from '../scopes';

// docs/scopes.md, written from the route tables: the same data that authorizes requests documents them.
export function renderScopesPage(tables: readonly RouteTable[], mounted: ReadonlySet<string>): string {
    const rows = tables.flatMap((table) => table.rows);
    const served = (row: RouteRow) => mounted.has(row.id) ? '' : ' *(not served by this version yet)*';
    const line = (row: RouteRow) => `- \`${row.method} ${row.path}\`: ${row.description}${served(row)}`;
    const out = [
        '# Scopes',
        '',
        '<!-- Generated from manifest/routes by `npm run docs`; edit the tables, not this file. -->',
        '',
        'An API key carries a list of scopes, and each route needs exactly one. Scopes are a ceiling: a key never does',
        'more than its owner\'s project role allows (a viewer\'s key with `apps:write` still cannot change an app).',
        'A session token (JWT) acts with the user\'s full rights, under the same roles; it holds every scope below',
        'except the `test-data` ones, which only API keys may carry.',
        '',
        'When a key is created, `<resource>:*` stands for every scope of that resource (`apps:*` is `apps:read`,',
        '`apps:write` and `apps:delete`); the key holds the expanded list. There is no `*` for every scope.',
        '',
        `A route called with a key that lacks its scope answers \`403\` with the message \`Missing required scope(s): <scope>\`.`,
        '',
        '| Scope | Grants |',
        '|---|---|',
        ...SCOPES.map((scope) => `| \`${scope}\` | ${SCOPE_DESCRIPTIONS[scope]} |`),
        ''
    ];

    for (const scope of SCOPES) {
        const needing = rows.filter((row) => row.auth === 'key' && row.scope === scope);
        out.push(`## \`${scope}\``, '', SCOPE_DESCRIPTIONS[scope], '');
        out.push(...(needing.length ? needing.map(line) : ['No route needs this scope.']), '');
    }

    const anyCredential = rows.filter((row) => row.auth === 'key' && row.scope === null);
    const sessions = rows.filter((row) => row.auth === 'session' || row.auth === 'admin');
    const open = rows.filter((row) => row.auth === 'public' || row.auth === 'webhook');
    out.push('## Any live credential, no scope', '', 'These accept an API key, a session or an OAuth token, whatever its scopes.', '', ...anyCredential.map(line), '');
    out.push('## Session only (JWT)', '', 'These refuse API keys and OAuth tokens with `403`, whatever their scopes.', '', ...sessions.map((row) => `${line(row)}${row.auth === 'admin' ? ' (platform admins only)' : ''}`), '');
    out.push('## No credential', '', ...open.map(line), '');
    return out.join('\n');
}
