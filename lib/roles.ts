// Project roles, strongest first, and app/worker collaborator permissions (api-contract.md section 4).
export const ROLES = ['owner', 'admin', 'developer', 'viewer'] as const;
export type Role = typeof ROLES[number];

const rank: Record<Role, number> = { owner: 4, admin: 3, developer: 2, viewer: 1 };

export function roleAtLeast(role: Role, needed: Role): boolean {
    return rank[role] >= rank[needed];
}

export function isRole(value: string): value is Role {
    return Object.hasOwn(rank, value);
}

export const PERMISSIONS = ['view', 'deploy', 'operate', 'manage'] as const;
export type Permission = typeof PERMISSIONS[number];
