import * as Boom from '@hapi/boom';
import type { Request } from '@hapi/hapi';

import type { Access } from '../../lib/access';
import type { FastReader } from '../../lib/db/fast-reader';
import type { ResourceKind } from '../../lib/resources';
import { roleAtLeast, type Permission, type Role } from '../../lib/roles';
import type { CompiledRow } from '../../lib/route-table';

// Steps 4 (create without projectId) to 8 of the precedence, after validation: resolve the project and the named
// resource with one indexed lookup each, 404 when unreachable, 403 for a mismatched projectId, the project role,
// and the collaborator permission. The result is handed to the handler in request.plugins.platform.

interface Reach {
    id: string;
    project_id: string;
    role: Role | null;
    permissions: string | null;
}

export const policyMessages = {
    projectRequired: '"projectId" is required when using an API key or OAuth token',
    otherProject: 'The resource belongs to another project than the projectId given',
    collaborator: (permission: Permission) => `Collaborator permission "${permission}" is required for this action`,
    role: (role: Role) => `This action requires the ${role} role or higher in the project`
};

export function notFound(kind: string): Boom.Boom {
    return Boom.notFound(`${kind.charAt(0).toUpperCase()}${kind.slice(1).replace(/[-_]/g, ' ')} not found`);
}

export class Policy {
    private readonly kinds: Map<string, ResourceKind>;
    private readonly statements = new Map<string, string>();

    constructor(private readonly reader: FastReader, kinds: readonly ResourceKind[]) {
        this.kinds = new Map(kinds.map((kind) => [kind.kind, kind]));
    }

    async resolve(request: Request, row: CompiledRow): Promise<Access> {
        const credentials = request.auth.credentials;
        const user = credentials.user!;
        const policy = row.compiled;
        const resolved: Access = {
            user,
            via: credentials.via,
            credentialId: credentials.credentialId,
            scopes: credentials.scopes,
            project: null,
            resource: null,
            ids: {}
        };

        let projectId = this.projectIdOf(request, row);
        if (policy.create && !projectId) {
            if (credentials.via !== 'session') {
                throw Boom.badRequest(policyMessages.projectRequired);
            }

            projectId = await this.personalProject(user.id);
        }

        if (projectId) {
            const reach = await this.reach(this.kinds.get('project')!, projectId, user.id);
            if (!reach?.role) {
                throw notFound('project');
            }

            resolved.project = { id: reach.project_id, role: reach.role };
        }

        if (policy.resource) {
            const ids: Record<string, string> = {};
            const reach = await this.resolveResource(request, policy.resource, user.id, ids);
            resolved.ids = ids;
            const permissions = reach.permissions ? JSON.parse(reach.permissions) as Permission[] : [];
            if (resolved.project && reach.project_id !== resolved.project.id) {
                throw Boom.forbidden(policyMessages.otherProject);
            }

            resolved.resource = { kind: policy.resource, id: reach.id, projectId: reach.project_id, role: reach.role, permissions };
            resolved.project ??= { id: reach.project_id, role: reach.role };
        }

        const role = resolved.resource ? resolved.resource.role : resolved.project?.role ?? null;
        if (role) {
            if (!roleAtLeast(role, policy.role)) {
                throw Boom.forbidden(policyMessages.role(policy.role));
            }
        }
        else if (resolved.resource) {
            const needed = this.collaboratorNeed(request, row);
            const granted = resolved.resource.permissions;
            // `manage` holds every permission, and any grant lets its holder view.
            if (!granted.includes(needed) && !granted.includes('manage') && !(needed === 'view' && granted.length)) {
                throw Boom.forbidden(policyMessages.collaborator(needed));
            }
        }

        return resolved;
    }

    /** The permission a collaborator needs: the row's, or a weaker one when the body touches only the listed fields. */
    private collaboratorNeed(request: Request, row: CompiledRow): Permission {
        const weaker = row.compiled.collaboratorFor;
        const fields = Object.keys((request.payload as object | null) ?? {});
        if (weaker && fields.length && fields.every((field) => weaker[field])) {
            return weaker[fields[0]!]!;
        }

        return row.compiled.collaborator;
    }

    private projectIdOf(request: Request, row: CompiledRow): string | undefined {
        switch (row.compiled.project) {
            case 'path': return request.params.projectId as string | undefined;
            case 'query': return request.query.projectId as string | undefined;
            case 'body': return (request.payload as { projectId?: string } | null)?.projectId;
            default: return undefined;
        }
    }

    /** Resolves a kind; a nested kind must belong to the parent named in the same path and inherits its access. */
    private async resolveResource(request: Request, kindName: string, userId: string, ids: Record<string, string>): Promise<Reach> {
        const kind = this.kinds.get(kindName)!;
        const value = request.params[kind.param] as string | undefined;
        if (kind.parent) {
            const parent = await this.resolveResource(request, kind.parent.kind, userId, ids);
            const child = value ? await this.reader.get<{ id: string }>(this.statement(kind), [value, parent.id]) : undefined;
            if (!child) {
                throw notFound(kind.kind);
            }

            ids[kind.kind] = child.id;
            return { ...parent, id: child.id };
        }

        const reach = value ? await this.reach(kind, value, userId) : undefined;
        if (!reach || (!reach.role && !reach.permissions)) {
            throw notFound(kind.kind);
        }

        ids[kind.kind] = reach.id;
        return reach;
    }

    private async reach(kind: ResourceKind, value: string, userId: string): Promise<Reach | undefined> {
        const params = kind.collaborators ? [userId, userId, value] : [userId, value];
        return this.reader.get<Reach>(this.statement(kind), params);
    }

    // Table and column names come from the resource catalogue, never from the request.
    private statement(kind: ResourceKind): string {
        let sql = this.statements.get(kind.kind);
        if (!sql) {
            if (kind.parent) {
                sql = `SELECT r.id AS id FROM ${kind.table} r WHERE r.${kind.column} = ? AND r.${kind.parent.column} = ?`;
            }
            else {
                const grants = kind.collaborators
                    ? ` LEFT JOIN collaborators c ON c.resource_type = '${kind.kind}' AND c.resource_id = r.id AND c.user_id = ?`
                    : '';
                sql = `SELECT r.id AS id, r.${kind.projectColumn} AS project_id, m.role AS role, ${kind.collaborators ? 'c.permissions' : 'NULL'} AS permissions` +
                    ` FROM ${kind.table} r LEFT JOIN memberships m ON m.project_id = r.${kind.projectColumn} AND m.user_id = ?${grants} WHERE r.${kind.column} = ?`;
            }

            this.statements.set(kind.kind, sql);
        }

        return sql;
    }

    private async personalProject(userId: string): Promise<string> {
        const row = await this.reader.get<{ id: string }>(
            'SELECT p.id FROM projects p JOIN memberships m ON m.project_id = p.id WHERE m.user_id = ? AND m.role = \'owner\' AND p.kind = \'personal\'', [userId]);
        if (!row) {
            throw Boom.badRequest('"projectId" is required: this account has no personal project');
        }

        return row.id;
    }
}
