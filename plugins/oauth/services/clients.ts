import type { Knex } from 'knex';

import { digestsEqual, sha256 } from '../../../lib/crypto';
import { ClientMetadataDocuments, ClientMetadataError, isMetadataDocumentId } from '../../../lib/oauth/client-metadata';
import { matchesPrefix, matchesRegistered } from '../../../lib/oauth/redirect-uri';
import { RegisteredClient } from '../models/client';
import type { ClientKind } from '../models/grant';
import { OAuthError, type PresentedClient } from '../protocol';

// Every kind of client the authorization server knows, behind one shape: the user's registered confidential
// clients (svoc_), the public chat-assistant client (redirect URIs matched by prefix), the legacy shared client
// (only when its secret is configured), and clients identified by a metadata document URL.

export interface OAuthClient {
    id: string;
    name: string;
    kind: ClientKind;
    host: string | null;                                        // a metadata document's host, shown on the consent screen
    confidential: boolean;
    ownerId: string | null;                                     // a registered client: only its owner may connect it
    redirectAllowed(uri: string): boolean;
}

export interface ClientSettings {
    assistant: { id: string; name: string; redirectPrefixes: readonly string[] } | null;
    legacy: { id: string; name: string; secret: string; redirectUris: readonly string[] } | null;
    documents: ClientMetadataDocuments | null;                  // null: metadata documents are not accepted
}

/** A client_id the authorize endpoint cannot use; the page shows the message (never redirected to the client). */
export class UnknownClientError extends Error { }

export class ClientRegistry {
    constructor(private readonly knex: Knex, private readonly settings: ClientSettings) { }

    get acceptsDocuments(): boolean {
        return this.settings.documents !== null;
    }

    /** The client an authorization request names, its metadata document fetched when it is one. */
    async forAuthorization(clientId: string): Promise<OAuthClient> {
        if (isMetadataDocumentId(clientId) && this.settings.documents) {
            try {
                const metadata = await this.settings.documents.resolve(clientId);
                return {
                    id: clientId, name: metadata.name, kind: 'document', host: metadata.host, confidential: false, ownerId: null,
                    redirectAllowed: (uri) => metadata.redirectUris.includes(uri)
                };
            }
            catch (err) {
                if (err instanceof ClientMetadataError) {
                    throw new UnknownClientError(`The application could not be identified: ${err.message}.`);
                }

                throw err;
            }
        }

        const found = await this.lookup(clientId);
        if (!found) {
            throw new UnknownClientError('The application is not registered with this server (unknown client_id).');
        }

        return found.client;
    }

    /** The client authenticating at the token or revocation endpoint; any failure is invalid_client. */
    async authenticate(presented: PresentedClient): Promise<OAuthClient> {
        const invalid = new OAuthError('invalid_client', 'Client authentication failed');
        if (isMetadataDocumentId(presented.clientId) && this.settings.documents) {
            if (presented.secret !== null) {
                throw invalid;
            }

            return { id: presented.clientId, name: presented.clientId, kind: 'document', host: null, confidential: false, ownerId: null, redirectAllowed: () => false };
        }

        const found = await this.lookup(presented.clientId);
        const matches = !!found?.secret && presented.secret !== null && digestsEqual(sha256(presented.secret), found.secret);
        if (!found || (found.client.confidential ? !matches : presented.secret !== null)) {
            throw invalid;
        }

        return found.client;
    }

    /** A pre-registered client, with the digest of its secret when it is confidential. */
    private async lookup(clientId: string): Promise<{ client: OAuthClient; secret: Buffer | null } | null> {
        const { assistant, legacy } = this.settings;
        if (assistant && clientId === assistant.id) {
            return {
                client: {
                    id: assistant.id, name: assistant.name, kind: 'assistant', host: null, confidential: false, ownerId: null,
                    redirectAllowed: (uri) => assistant.redirectPrefixes.some((prefix) => matchesPrefix(prefix, uri))
                },
                secret: null
            };
        }

        if (legacy && clientId === legacy.id) {
            return {
                client: {
                    id: legacy.id, name: legacy.name, kind: 'legacy', host: null, confidential: true, ownerId: null,
                    redirectAllowed: (uri) => legacy.redirectUris.includes(uri)
                },
                secret: sha256(legacy.secret)
            };
        }

        const registered = /^svoc_[0-9A-Za-z]{16}$/.test(clientId) ? await RegisteredClient.query(this.knex).findById(clientId) : undefined;
        return registered ? {
            client: {
                id: registered.id, name: registered.name, kind: 'registered', host: null, confidential: true, ownerId: registered.userId,
                redirectAllowed: (uri) => registered.redirectUris.some((candidate) => matchesRegistered(candidate, uri))
            },
            secret: Buffer.from(registered.secretHash, 'hex')
        } : null;
    }
}
