import type { RegisteredClient } from './models/client';
import type { Grant } from './models/grant';
import type { ConnectedApp } from './services/grants';

/** An OAuth client as its owner sees it: never its secret. */
export function publicClient(client: RegisteredClient) {
    return { id: client.id, name: client.name, redirectUris: client.redirectUris, createdAt: client.createdAt };
}

/** A connected AI app: the client, what it may read, and where. `projects` null means every project the user reaches. */
export function connectedApp({ grant, projects }: ConnectedApp) {
    return {
        id: grant.id,
        client: { id: grant.clientId, name: grant.clientName, kind: grant.clientKind, host: clientHost(grant) },
        scopes: grant.scopes,
        projects,
        createdAt: grant.createdAt,
        lastUsedAt: grant.lastUsedAt
    };
}

function clientHost(grant: Grant): string | null {
    return grant.clientKind === 'document' ? new URL(grant.clientId).host : null;
}
