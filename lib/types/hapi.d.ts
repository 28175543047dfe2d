import type { Scope } from '../scopes';
import type { CompiledRow } from '../route-table';
import type { Access } from '../access';
import type { ResourceKind } from '../resources';
import type { SessionSigner } from '../session-token';
import type { JobQueue } from '../queue/types';

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
    }

    interface PluginSpecificConfiguration {
        platform?: CompiledRow;
    }

    interface PluginProperties {
        'hostless-auth': {
            strategy: string;
            kinds: readonly ResourceKind[];
            signer: SessionSigner;
            introspect(authorization: string): Promise<{ status: number; body: unknown }>;
        };
        'hostless-jobs': { queue: JobQueue; mode: 'all' | 'api' | 'worker' };
    }

    interface PluginsStates {
        platform?: Access;
    }
}
