import { publicPrefix } from '../../lib/api-key-token';
import type { ApiKey } from './models/api-key';

/** Exactly the spec's seven fields; `prefix` is the public `svk_<prefix>`. */
export function publicApiKey(key: ApiKey) {
    return {
        id: key.id,
        name: key.name,
        prefix: publicPrefix(key.prefix),
        scopes: key.scopes,
        expiresAt: key.expiresAt,
        lastUsedAt: key.lastUsedAt,
        createdAt: key.createdAt
    };
}
