import type { User } from '../../lib/models/user';
import type { SshKey } from './models/ssh-key';

export function publicUser(user: User) {
    return {
        id: user.id,
        email: user.email,
        name: user.name,
        isAdmin: !!user.adminSince,
        createdAt: user.createdAt,
        updatedAt: user.updatedAt
    };
}

export function publicSshKey(key: SshKey) {
    return { id: key.id, name: key.name, fingerprint: key.fingerprint, publicKey: key.publicKey, createdAt: key.createdAt };
}
