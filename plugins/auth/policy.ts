import * as Boom from '@hapi/boom';
import type { Request } from '@hapi/hapi';
import { snakeCaseMappers } from 'objection';

import type { Access } from '../../lib/access';
import type { FastReader } from '../../lib/db/fast-reader';
import { kindLabel, type ResourceKind, type RowLoader } from '../../lib/resources/kinds';
import { roleAtLeast, type Permission, type Role } from '../../lib/roles';
import type { CompiledRow } from '../../lib/route-table';
import { idPattern } from '../../lib/ids';

// Steps 4 (create without projectId) to 8 of the precedence, after validation: resolve the project and the named
// resource with one indexed lookup per level, loading each row whole, 404 when unreachable, 403 for a mismatched
// projectId, the project role, and the collaborator permission. The result (rows included) is handed to the handler
// in request.plugins.platform, so no handler reads the same row again.

const ROLE = 'reach_role__';
const GRANT = 'reach_grant__';

interface Reach {
    id: string;
    projectId: string;
    role: Role | null;
    permissions: Permission[];
    row: object;
}

/** A request header that narrows what a credential reaches to one project (the MCP server sends its X-MCP-Project pin here). */
export const PIN_HEADER = 'x-project-pin';

export const policyMessages = {
    pin: `The X-Project-Pin header must be one project id such as prj_4f9KqzT0aBcD1eFg`,
    projectRequired: '"projectId" is required when using an API key or OAuth token',
    otherProject: 'The resource belongs to another project than the projectId given',
    collaborator: (permission: Permission) => `Collaborator permission "${permission}" is required for this action`,
    role: (role: Role) => `This action requires the ${role} role or higher in the project`
};

export function notFound(kind: ResourceKind | string): Boom.Boom {
    return Boom.notFound(`${kindLabel(kind)} not found`);
}

/** The request's body as the policy reads it: the JSON payload, or a multipart request's body part (its metadata). */
function bodyOf(request: Request): object | null {
    return request.plugins.form?.body ?? request.payload as object | null;
}

const mappers = snakeCaseMappers();
const plainLoader: RowLoader = { fromDatabaseJson: (row) => mappers.parse(row) };
/** A credential pinned to some projects (an OAuth grant's choice) reaches nothing outside them: the same 404 as a missing one. */
function outsidePin(pin: readonly string[] | null, projectId: string): boolean {
    return pin !== null && !pin.includes(projectId);
}

/**
 * The projects a request may reach: the credential's pin (an OAuth grant's projects; null: all the user's)
 * narrowed by an X-Project-Pin header to that one project. A header only narrows: a project outside the
 * credential's pin leaves nothing reachable, and membership is checked as for every request.
 */
export function requestPin(request: Request, credentialPin: readonly string[] | null): readonly string[] | null {
    const header = request.headers[PIN_HEADER];
    if (header === undefined) {
        return credentialPin;
    }

    if (typeof header !== 'string' || !idPattern('prj').test(header.trim())) {
        throw Boom.badRequest(policyMessages.pin);
    }

    const project = header.trim();
    return credentialPin ? credentialPin.filter((id) => id === project) : [project];
}

export class Policy {
    private readonly kinds = new Map<string, ResourceKind>();
    private readonly loaders = new Map<string, RowLoader>();
    private readonly statements = new Map<string, string>();

    constructor(private readonly reader: FastReader, kinds: readonly ResourceKind[]) {
        this.register(kinds);
    }

    /** Adds kinds (a family's table declares them), with the loader that turns each kind's row into its model. */
    register(kinds: readonly ResourceKind[], loaders: Readonly<Record<string, RowLoader>> = {}): void {
        for (const kind of kinds) {
            const known = this.kinds.get(kind.kind);
            if (known && JSON.stringify(known) !== JSON.stringify(kind)) {
                throw new Error(`Resource kind ${kind.kind} is declared twice, differently`);
            }

            this.kinds.set(kind.kind, kind);
        }

        for (const [kind, loader] of Object.entries(loaders)) {
            this.loaders.set(kind, loader);
        }
    }

    get all(): ResourceKind[] {
        return [...this.kinds.values()];
    }

    async resolve(request: Request, row: CompiledRow): Promise<Access> {
        const credentials = request.auth.credentials;
        const user = credentials.user!;
        const policy = row.compiled;
        const pin = requestPin(request, credentials.pinnedProjects);
        const rows: Record<string, object> = {};
        const ids: Record<string, string> = {};
        const resolved: Access = {
            user,
            via: credentials.via,
            credentialId: credentials.credentialId,
            scopes: credentials.scopes,
            pinnedProjects: pin,
            project: null,
            resource: null,
            ids,
            rows
        };

        let projectId = this.projectIdOf(request, row);
        if (policy.create && !projectId && pin?.length === 1) {
            projectId = pin[0];                                 // a pinned request creates in its project
        }

        if (policy.create && !projectId) {
            if (credentials.via !== 'session') {
                throw Boom.badRequest(policyMessages.projectRequired);
            }

            projectId = await this.personalProject(user.id);
        }

        if (projectId) {
            const reach = await this.reach(this.kinds.get('project')!, projectId, user.id);
            if (!reach?.role || outsidePin(pin, reach.projectId)) {
                throw notFound('project');
            }

            resolved.project = { id: reach.projectId, role: reach.role };
            rows.project = reach.row;
            ids.project = reach.id;
        }

        if (policy.resource) {
            const reach = await this.resolveResource(request, this.kinds.get(policy.resource)!, user.id, pin, ids, rows);
            if (resolved.project && reach.projectId !== resolved.project.id) {
                throw Boom.forbidden(policyMessages.otherProject);
            }

            resolved.resource = { kind: policy.resource, id: reach.id, projectId: reach.projectId, role: reach.role, permissions: reach.permissions };
            resolved.project ??= { id: reach.projectId, role: reach.role };
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
        const fields = Object.keys(bodyOf(request) ?? {});
        if (weaker && fields.length && fields.every((field) => weaker[field])) {
            return weaker[fields[0]];
        }

        return row.compiled.collaborator;
    }

    private projectIdOf(request: Request, row: CompiledRow): string | undefined {
        switch (row.compiled.project) {
            case 'path': return request.params.projectId as string | undefined;
            case 'query': return request.query.projectId as string | undefined;
            case 'body': return (bodyOf(request) as { projectId?: string } | null)?.projectId;
            default: return undefined;
        }
    }

    /** Resolves a kind and its parents; a nested kind must belong to the parent named in the same path and inherits its access. */
    private async resolveResource(request: Request, kind: ResourceKind, userId: string, pin: readonly string[] | null, ids: Record<string, string>, rows: Record<string, object>): Promise<Reach> {
        const value = request.params[kind.param] as string | undefined;
        if (kind.parent) {
            const parent = await this.resolveResource(request, this.kinds.get(kind.parent.kind)!, userId, pin, ids, rows);
            const child = value ? await this.reader.get<Record<string, unknown>>(this.statement(kind), [value, parent.id]) : undefined;
            if (!child) {
                throw notFound(kind);
            }

            const row = this.load(kind, child);
            ids[kind.kind] = child.id as string;
            rows[kind.kind] = row;
            return { ...parent, id: child.id as string, row };
        }

        const reach = value ? await this.reach(kind, value, userId) : undefined;
        if (!reach || (!reach.role && !reach.permissions.length) || outsidePin(pin, reach.projectId)) {
            throw notFound(kind);
        }

        ids[kind.kind] = reach.id;
        rows[kind.kind] = reach.row;
        return reach;
    }

    private async reach(kind: ResourceKind, value: string, userId: string): Promise<Reach | undefined> {
        const params = kind.collaborators ? [userId, userId, value] : [userId, value];
        const found = await this.reader.get<Record<string, unknown>>(this.statement(kind), params);
        if (!found) {
            return undefined;
        }

        const { [ROLE]: role, [GRANT]: grant, ...own } = found;
        return {
            id: own.id as string,
            projectId: own[kind.projectColumn] as string,
            role: (role as Role | null) ?? null,
            permissions: typeof grant === 'string' ? JSON.parse(grant) as Permission[] : [],
            row: this.load(kind, own)
        };
    }

    private load(kind: ResourceKind, row: Record<string, unknown>): object {
        return (this.loaders.get(kind.kind) ?? plainLoader).fromDatabaseJson(row);
    }

    // Table and column names come from the resource catalogue, never from the request.
    private statement(kind: ResourceKind): string {
        let sql = this.statements.get(kind.kind);
        if (!sql) {
            if (kind.parent) {
                sql = `SELECT r.* FROM ${kind.table} r WHERE r.${kind.column} = ? AND r.${kind.parent.column} = ?`;
            }
            else {
                const grants = kind.collaborators
                    ? ` LEFT JOIN collaborators c ON c.resource_type = '${kind.kind}' AND c.resource_id = r.id AND c.user_id = ?`
                    : '';
                sql = `SELECT r.*, m.role AS ${ROLE}, ${kind.collaborators ? 'c.permissions' : 'NULL'} AS ${GRANT}` +
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
