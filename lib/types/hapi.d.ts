import type { Scope } from '../scopes';
import type { CompiledRow } from '../route-table';
import type { Access } from '../access';
import type { ResourceKind, RowLoader } from '../resources/kinds';
import type { SessionSigner } from '../session-token';
import type { AccessTokenVerifier } from '../oauth/access-token';
import type { JobQueue } from '../queue/types';
import type { FastReader } from '../db/fast-reader';
import type { Lists } from '../lists';
import type { Outbox } from '../notifications/outbox';
import type { RuntimeServices } from '../resources/services';
import type { Invitations } from '../invitations';
import type { MultipartForm, MultipartSpec } from '../multipart';
import type { Edge } from '../edge/edge';
import type { EdgeMeter } from '../edge/meter';
import type { FileStore } from '../edge/store';
import type { PlatformEvents } from '../events';
import type { Integrations } from '../integrations/service';
import type { ProcessDriver } from '../runtime/process/driver';
import type { UpstreamProxy } from '../runtime/process/proxy';

declare module '@hapi/hapi' {
    interface UserCredentials {
        id: string;
        email: string;
        isAdmin: boolean;
    }

    interface AuthCredentials {
        via: 'key' | 'session' | 'oauth';
        credentialId: string;
        scopes: readonly Scope[];
        pinnedProjects: readonly string[] | null;                // the only projects it may reach (an OAuth grant's choice); null: all the user's
    }

    interface PluginSpecificConfiguration {
        platform?: CompiledRow;
        multipart?: MultipartSpec;
    }

    interface PluginProperties {
        'hostless-auth': {
            strategy: string;
            kinds: () => readonly ResourceKind[];
            register(kinds: readonly ResourceKind[], loaders?: Readonly<Record<string, RowLoader>>): void;
            signer: SessionSigner;
            accessTokens: AccessTokenVerifier;
            settleUses: () => Promise<void>;
            introspect: (authorization: string, ip?: string | null) => Promise<{ status: number; body: unknown }>;
            reader: FastReader;
            lists: Lists;
        };
        'hostless-resources': { services: RuntimeServices };
        'hostless-edge': { edge: Edge; store: FileStore; meter: EdgeMeter };
        'hostless-dashboard'?: { cookie: string; liveTails: { count(): number } };
        'hostless-jobs': { queue: JobQueue; mode: 'all' | 'api' | 'worker' };
        'hostless-notifications': { outbox: Outbox };
        'hostless-invitations': { invitations: Invitations };
        'hostless-events': { events: PlatformEvents };
        'hostless-integrations': { integrations: Integrations };
        'hostless-runtime'?: { driver: ProcessDriver; proxy: UpstreamProxy; start(): Promise<void> };                // under the process driver only
    }

    interface PluginsStates {
        platform?: Access;
        form?: MultipartForm;                                   // a multipart row's parts: its body read, its file not yet
    }

    interface Request {
        /** Where the request comes from (lib/client-address.ts), with the deployment's trusted proxies (auth plugin). */
        clientAddress(): string | null;
    }
}
