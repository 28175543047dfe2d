import Hoek from '@hapi/hoek';

import type { FastReader, Lookup } from './db/fast-reader';
import { limitTerm } from './db/limit';
import { LIST_JSON_COLUMN } from './db/stored-json';
import { decodeCursor, encodeCursor, type Page } from './pagination';

// Keyset pages, newest first then id, whose cost is the page and not the table, on SQLite and PostgreSQL alike.
// A scoped list (a resource's deployments, a project's members) walks one index. A list of what a caller can
// reach merges one arm per source, each walking an index in order: one per project the caller is a member of, one
// per resource granted to them as a collaborator (a single row). SQLite merges a compound SELECT's ordered arms
// without a sort; PostgreSQL merges arms that each carry their own ORDER BY and LIMIT (a Merge Append). The SQL
// text depends only on the shape (how many arms) and, on SQLite, the limit (lib/db/limit.ts), so each is prepared once.
const FIRST = ['9999-12-31T23:59:59.999Z', ''] as const;       // a position after every row: the first page
// SQLite allows 500 terms in a compound SELECT; past this many arms one statement sorts the reachable set instead.
export const MAX_ARMS = 400;
const MAX_SHAPES = 1000;                                        // JSON page statements kept

const MEMBERSHIPS: Lookup = { key: 'user_id', columns: 'project_id', from: 'memberships' };

export interface PageRequest {
    limit: number;
    cursor?: string | undefined;
}

interface Position {
    created_at: string;
    id: string;
}

/** A list scoped by equal columns, e.g. `{ resource_id }` on deployments: needs an index on (scope..., created_at, id). */
export interface ScopedList<T> {
    table: string;                                              // a table, or a join: `memberships m JOIN users u ON u.id = m.user_id`
    scope: Readonly<Record<string, string>>;
    load: (row: Record<string, unknown>) => T;
    select?: string;                                            // default *
    where?: string;                                             // a fixed condition without parameters: `revoked_at IS NULL`
    key?: { createdAt: string; id: string };                    // the columns of the order (default created_at, id)
}

/** A kind listed across everything a caller reaches: needs an index on (projectColumn, created_at, id). */
export interface ReachableKind {
    kind: string;
    table: string;
    projectColumn: string;
    collaborators?: boolean;
    select?: string;                                            // columns (default r.*)
}

/** A page whose items are already JSON text: `json` is the array. */
export interface JsonPage {
    json: string;
    next: string | null;
}

export interface Reacher {
    userId: string;
    projectId?: string | null;                                  // narrowed to one project the pipeline resolved
    pinnedProjects?: readonly string[] | null;                  // a pinned credential reaches these projects only
}

export class Lists {
    constructor(private readonly reader: FastReader, private readonly postgres: boolean) { }

    async page<T>(list: ScopedList<T>, page: PageRequest): Promise<Page<T>> {
        const key = list.key ?? { createdAt: 'created_at', id: 'id' };
        const output = (column: string) => column.slice(column.lastIndexOf('.') + 1);
        const conditions = [...Object.keys(list.scope).map((column) => `${column} = ?`), ...list.where ? [list.where] : [], `(${key.createdAt}, ${key.id}) < (?, ?)`];
        const limit = limitTerm(page.limit + 1, this.postgres);
        const sql = `SELECT ${list.select ?? '*'} FROM ${list.table} WHERE ${conditions.join(' AND ')} ORDER BY ${key.createdAt} DESC, ${key.id} DESC LIMIT ${limit.sql}`;
        const after = this.position(page.cursor);
        const rows = await this.reader.all<Record<string, unknown>>(sql, [...Object.values(list.scope), after.created_at, after.id, ...limit.params]);
        return this.toPage(rows.map((row) => ({ row, position: { created_at: row[output(key.createdAt)] as string, id: row[output(key.id)] as string } })), page.limit, list.load);
    }

    /**
     * The page of rows read in full, newest first then id, compared as JavaScript compares strings (the cursor holds
     * that order on both databases): for what a caller holds few of, their member projects, where one indexed read
     * of them all costs less than a merge of one arm each.
     */
    pageOfAll<T>(rows: ReadonlyArray<Record<string, unknown>>, page: PageRequest, load: (row: Record<string, unknown>) => T): Page<T> {
        const after = this.position(page.cursor);
        const key = (row: Record<string, unknown>) => ({ created_at: row.created_at as string, id: row.id as string });
        const before = (a: Position, b: Position) => a.created_at < b.created_at || (a.created_at === b.created_at && a.id < b.id);
        const sorted = rows.map((row) => ({ row, position: key(row) }))
            .filter((item) => before(item.position, after))
            .sort((a, b) => before(a.position, b.position) ? 1 : before(b.position, a.position) ? -1 : 0);
        return this.toPage(sorted.slice(0, page.limit + 1), page.limit, load);
    }

    /** The page of a kind the caller reaches: two statements (the caller's sources, then the merged arms). */
    async reachable<T>(kind: ReachableKind, who: Reacher, page: PageRequest, load: (row: Record<string, unknown>) => T): Promise<Page<T>> {
        const sources = who.projectId ? { projects: [who.projectId], grants: [] } : await this.sources(kind, who.userId, who.pinnedProjects ?? null);
        if (!sources.projects.length && !sources.grants.length) {
            return { items: [], next: null };
        }

        const after = this.position(page.cursor);
        const { sql, params } = reachableStatement(kind, sources.projects.length, sources.grants.length, this.postgres, page.limit + 1);
        const rows = await this.reader.all<Record<string, unknown>>(sql, params(sources.projects, sources.grants, [after.created_at, after.id]));
        return this.toPage(rows.map((row) => ({ row, position: { created_at: row.created_at as string, id: row.id as string } })), page.limit, load);
    }

    /** The same page as the JSON text the database keeps for each row (lib/db/stored-json.ts): `json` is the array's text. */
    async reachableJson(kind: ReachableKind, who: Reacher, page: PageRequest): Promise<JsonPage> {
        const sources = who.projectId ? { projects: [who.projectId], grants: [] } : await this.sources(kind, who.userId, who.pinnedProjects ?? null);
        if (!sources.projects.length && !sources.grants.length) {
            return { json: '[]', next: null };
        }

        const after = this.position(page.cursor);
        const { sql, params } = this.jsonStatement(kind, sources.projects.length, sources.grants.length, page.limit + 1);
        const rows = await this.reader.values<[createdAt: string, id: string, json: string]>(sql, params(sources.projects, sources.grants, [after.created_at, after.id]));
        const items = rows.length > page.limit ? rows.slice(0, page.limit) : rows;
        const last = items[items.length - 1];
        return {
            json: `[${items.map((row) => row[2]).join(',')}]`,
            next: rows.length > page.limit && last ? encodeCursor({ createdAt: last[0], id: last[1] }) : null
        };
    }

    // The statement text of a JSON page, built once per shape (a few kilobytes of SQL a request otherwise).
    private readonly jsonStatements = new Map<string, ReturnType<typeof reachableStatement>>();

    private jsonStatement(kind: ReachableKind, projects: number, grants: number, limit: number) {
        const key = `${kind.table} ${kind.projectColumn} ${kind.collaborators ? 1 : 0} ${projects} ${grants} ${limit}`;
        let statement = this.jsonStatements.get(key);
        if (!statement) {
            if (this.jsonStatements.size >= MAX_SHAPES) {
                this.jsonStatements.clear();
            }

            statement = reachableStatement({ ...kind, select: `r.created_at, r.id, r.${LIST_JSON_COLUMN} AS j` }, projects, grants, this.postgres, limit);
            this.jsonStatements.set(key, statement);
        }

        return statement;
    }

    /** The page of a kind across the given projects (those where the caller holds some role): one merged arm each. */
    async ofProjects<T>(kind: ReachableKind, projectIds: readonly string[], page: PageRequest, load: (row: Record<string, unknown>) => T): Promise<Page<T>> {
        if (!projectIds.length) {
            return { items: [], next: null };
        }

        const after = this.position(page.cursor);
        const { sql, params } = reachableStatement(kind, projectIds.length, 0, this.postgres, page.limit + 1);
        const rows = await this.reader.all<Record<string, unknown>>(sql, params(projectIds, [], [after.created_at, after.id]));
        return this.toPage(rows.map((row) => ({ row, position: { created_at: row.created_at as string, id: row.id as string } })), page.limit, load);
    }

    // The lookups of a kind's grants, one per kind (a batch is gathered per lookup).
    private readonly grantLookups = new Map<string, Lookup>();

    /**
     * The caller's member projects and granted resources, each within the credential's pin: read with the other
     * requests' of the same turn (lib/db/lookup-batch.ts), two indexed lookups by user.
     */
    private async sources(kind: ReachableKind, userId: string, pin: readonly string[] | null): Promise<{ projects: string[]; grants: string[] }> {
        const [memberships, granted] = await Promise.all([
            this.reader.lookupAll<[projectId: string]>(MEMBERSHIPS, userId),
            kind.collaborators ? this.reader.lookupAll<[projectId: string, resourceId: string]>(this.grantLookup(kind.kind), userId) : []
        ]);
        const reached = (projectId: string) => !pin || pin.includes(projectId);
        return {
            projects: memberships.flatMap(([projectId]) => reached(projectId) ? [projectId] : []),
            grants: granted.flatMap(([projectId, resourceId]) => reached(projectId) ? [resourceId] : [])
        };
    }

    private grantLookup(kind: string): Lookup {
        let lookup = this.grantLookups.get(kind);
        if (!lookup) {
            Hoek.assert(/^[a-z_]+$/.test(kind), 'A resource kind is lowercase letters and underscores:', kind);
            lookup = { key: 'user_id', columns: 'project_id, resource_id', from: 'collaborators', where: `resource_type = '${kind}'` };
            this.grantLookups.set(kind, lookup);
        }

        return lookup;
    }

    private position(cursor: string | undefined): Position {
        if (!cursor) {
            return { created_at: FIRST[0], id: FIRST[1] };
        }

        const { createdAt, id } = decodeCursor(cursor);
        return { created_at: createdAt, id };
    }

    private toPage<T>(rows: Array<{ row: Record<string, unknown>; position: Position }>, limit: number, load: (row: Record<string, unknown>) => T): Page<T> {
        const items = rows.slice(0, limit);
        const last = items[items.length - 1];
        return {
            items: items.map((item) => load(item.row)),
            next: rows.length > limit && last ? encodeCursor({ createdAt: last.position.created_at, id: last.position.id }) : null
        };
    }
}

/**
 * The statement for a caller with `projects` member projects and `grants` granted resources, reading `limit` rows
 * (written into the text on SQLite, lib/db/limit.ts). Exposed so a test can ask each database for its plan: no sort
 * for the ORDER BY, no full scan.
 */
export function reachableStatement(kind: ReachableKind, projects: number, grants: number, postgres: boolean, limit: number) {
    const select = kind.select ?? 'r.*';
    const keyset = '(r.created_at, r.id) < (?, ?)';
    const order = 'ORDER BY created_at DESC, id DESC';
    const last = limitTerm(limit, postgres);
    const projectArm = `SELECT ${select} FROM ${kind.table} r WHERE r.${kind.projectColumn} = ? AND ${keyset}`;
    const grantArm = `SELECT ${select} FROM ${kind.table} r WHERE r.id = ? AND ${keyset}`;
    const arms = [...Array<string>(projects).fill(projectArm), ...Array<string>(grants).fill(grantArm)];
    type Params = (projectIds: readonly string[], grantIds: readonly string[], after: readonly [string, string]) => unknown[];
    if (arms.length > MAX_ARMS) {
        const inList = (count: number) => Array<string>(count).fill('?').join(', ');
        const reach = [projects ? `r.${kind.projectColumn} IN (${inList(projects)})` : '', grants ? `r.id IN (${inList(grants)})` : ''].filter(Boolean).join(' OR ');
        const params: Params = (projectIds, grantIds, after) => [...projectIds, ...grantIds, ...after, ...last.params];
        return { sql: `SELECT ${select} FROM ${kind.table} r WHERE (${reach}) AND ${keyset} ${order.replace(/created_at|id/g, (c) => `r.${c}`)} LIMIT ${last.sql}`, params };
    }

    const merged = postgres && arms.length > 1;
    const sql = merged
        ? `${arms.map((arm) => `(${arm} ORDER BY r.created_at DESC, r.id DESC LIMIT ${last.sql})`).join(' UNION ALL ')} ${order} LIMIT ${last.sql}`
        : `${arms.join(' UNION ALL ')} ${arms.length > 1 ? order : order.replace(/created_at|id/g, (c) => `r.${c}`)} LIMIT ${last.sql}`;
    const perArm = merged ? last.params : [];
    const params: Params = (projectIds, grantIds, after) => [...[...projectIds, ...grantIds].flatMap((id) => [id, ...after, ...perArm]), ...last.params];
    return { sql, params };
}
