import * as Fs from 'node:fs';
import * as Path from 'node:path';

import type { Server } from '@hapi/hapi';

import type { CompiledRow, RouteTable } from './route-table';

// The spec's route table (spec/routes.json, a copy of the shared spec) compared with the tables and the server:
// every spec route must be declared with exactly its scope, and every mounted route must come from a table row.
export interface SpecRoute {
    method: string;
    path: string;                                               // as the spec writes it, without /v1
    scope: string;
}

export interface MountedRoute {
    method: string;
    path: string;
    id: string | null;
    row: CompiledRow | null;
}

export function specRoutes(file = Path.join(__dirname, '..', 'spec', 'routes.json')): SpecRoute[] {
    return JSON.parse(Fs.readFileSync(file, 'utf8')) as SpecRoute[];
}

export function mountedRoutes(server: Server): MountedRoute[] {
    return server.table().map((route) => ({
        method: route.method.toUpperCase(),
        path: route.path,
        id: route.settings.id ?? null,
        row: route.settings.plugins?.platform ?? null
    }));
}

export interface CoverageReport {
    spec: SpecRoute[];
    mounted: SpecRoute[];
    missing: Array<SpecRoute & { declaredAs: string | null }>;
    problems: string[];
}

const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

export function compareWithSpec(spec: SpecRoute[], mounted: MountedRoute[], tables: readonly RouteTable[]): CoverageReport {
    const problems: string[] = [];
    const declared = new Map(tables.flatMap((table) => table.rows.map((row) => [key(row.method, row.path), row] as const)));
    const live = new Map(mounted.map((route) => [key(route.method, route.path), route]));

    for (const route of spec) {
        const row = declared.get(key(route.method, `/v1${route.path}`));
        if (!row) {
            problems.push(`spec route ${route.method} ${route.path} is declared in no table`);
        }
        else if (row.auth !== 'key' || row.scope !== route.scope) {
            problems.push(`spec route ${route.method} ${route.path} is declared with ${row.auth}/${row.scope ?? 'no scope'} instead of ${route.scope}`);
        }
    }

    for (const route of mounted) {
        if (!route.row) {
            problems.push(`mounted route ${route.method} ${route.path} is in no route table`);
            continue;
        }

        const row = declared.get(key(route.method, route.path));
        if (!row || row.id !== route.row.id || row.scope !== route.row.scope || row.auth !== route.row.auth) {
            problems.push(`mounted route ${route.method} ${route.path} differs from its table row`);
        }
    }

    const isMounted = (route: SpecRoute) => live.has(key(route.method, `/v1${route.path}`));
    return {
        spec,
        mounted: spec.filter(isMounted),
        missing: spec.filter((route) => !isMounted(route)).map((route) => ({ ...route, declaredAs: declared.get(key(route.method, `/v1${route.path}`))?.id ?? null })),
        problems
    };
}
