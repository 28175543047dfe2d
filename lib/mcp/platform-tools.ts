import Hoek from '@hapi/hoek';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type Joi from 'joi';
import * as z from 'zod';

import { idPattern } from '../ids';
import { MAX_LIMIT } from '../pagination';
import { pathParams, type RouteRow } from '../route-table';
import { dnsLabel } from '../validation';
import { ApiUnreachableError, type ApiClient, type ApiRequest, type ApiResponse } from './api-client';
import { toolShape } from './joi-zod';
import { listOutput } from './output-schemas';
import { failure, success, type Tool, type ToolDefinition } from './tool';

// The platform tools, `<kind>_<action>`, expanded from one line of data per kind and mapped onto the REST routes
// named by route-table ids (api-contract.md section 12): list, get, create, patch and delete. Each call goes to the
// API with the caller's own Authorization header; the API's answer, error or not, is what the tool returns.

export const ACTIONS = ['list', 'get', 'create', 'patch', 'delete'] as const;
export type Action = typeof ACTIONS[number];

export interface KindTools {
    kind: string;                                               // tool prefix and selection group: `apps`, `cron_jobs`
    offered: boolean;                                           // the switch: on once the API mounts the kind's routes
    noun: string;                                               // `app`, `cron job`
    plural: string;
    about: string;                                              // what the kind is, for a model choosing a tool
    short: string;                                              // the kind in a few plain words: `static website`
    details?: string;                                           // what get shows beyond the settings, if anything
    item?: z.ZodObject;                                         // the shape of one (lib/mcp/output-schemas.ts): the output schema of get, create, patch and list
    key: 'projectId' | 'name';                                  // the argument that addresses one
    routes: Readonly<Record<Action, string>>;                   // route-table row ids
    body: { create: Joi.ObjectSchema; patch: Joi.ObjectSchema } | null;   // the REST bodies the fields derive from; null: passed through
}

export interface PlatformToolDefinition extends ToolDefinition {
    kind: string;
    action: Action;
    offered: boolean;
    row: RouteRow;
    key: KindTools['key'];
    noun: string;
    plural: string;
}

const projectId = () => z.string().regex(idPattern('prj'), 'a project id such as prj_4f9KqzT0aBcD1eFg');
const resourceName = () => z.string().regex(dnsLabel, 'a DNS label: lowercase letters, digits and hyphens, starting with a letter');

const article = (noun: string) => /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
const capital = (text: string) => `${text[0].toUpperCase()}${text.slice(1)}`;

function access(row: RouteRow): string {
    if (row.auth === 'session') {
        return 'Needs a user session token: API keys and OAuth tokens get 403.';
    }

    return row.scope ? `Scope: ${row.scope}.` : 'Any live credential.';
}

function keyField(spec: KindTools, purpose: string) {
    return spec.key === 'projectId'
        ? projectId().describe(`The project ${purpose} (prj_..., from projects_list).`)
        : resourceName().describe(`The ${spec.noun}'s name.`);
}

function inputSchema(spec: KindTools, action: Action): z.ZodObject {
    const listFields = {
        ...(spec.key === 'projectId' ? {} : { projectId: projectId().optional().describe(`Only this project's ${spec.plural} (prj_..., from projects_list); without it, all the caller can reach.`) }),
        limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`Page size (default 50).`),
        cursor: z.string().min(1).max(200).optional().describe('The previous page\'s nextCursor, for the next page.')
    };
    // With a body schema every field derives from it (name and projectId included); without, the two are stated here.
    const body = (action: 'create' | 'patch'): z.ZodRawShape => spec.body ? toolShape(spec.body[action]) : {};
    const shapes: Record<Action, z.ZodRawShape> = {
        list: listFields,
        get: { [spec.key]: keyField(spec, 'to read') },
        create: spec.key === 'name' && !spec.body
            ? {
                projectId: projectId().optional().describe('The project to create it in (prj_..., from projects_list). Required with an API key or OAuth token; with a user session the personal project is used when omitted.'),
                name: resourceName().describe(`The new ${spec.noun}'s name: a DNS label, unique across the platform.`)
            }
            : body('create'),
        patch: { [spec.key]: keyField(spec, 'to change'), ...body('patch') },
        delete: { [spec.key]: keyField(spec, 'to delete') }
    };
    const passThrough = !spec.body && (action === 'create' || action === 'patch');
    return passThrough ? z.object(shapes[action]).catchall(z.unknown()) : z.strictObject(shapes[action]);
}

function description(spec: KindTools, action: Action, row: RouteRow): string {
    const more = spec.body ? '' : ` Further fields of the REST body (${row.method} ${row.path}) pass through unchanged; the API answers 400 naming any field it does not know.`;
    const text: Record<Action, string> = {
        list: `List all the ${spec.plural} the caller can reach, newest first, in pages. ${spec.about}`,
        get: `Get one ${spec.noun} by its ${spec.key === 'name' ? 'name' : 'id'}.${spec.details ? ` ${spec.details}` : ''}`,
        create: `Create ${article(spec.noun)} (${spec.short}).${more}`,
        patch: `Change ${article(spec.noun)}; fields left out stay unchanged.${more}`,
        delete: `Delete ${article(spec.noun)}. This cannot be undone.`
    };
    return `${text[action]} ${access(row)}`;
}

const titles: Record<Action, (spec: KindTools) => string> = {
    list: (spec) => `List ${spec.plural}`,
    get: (spec) => `Get ${article(spec.noun)}`,
    create: (spec) => `Create ${article(spec.noun)}`,
    patch: (spec) => `Change ${article(spec.noun)}`,
    delete: (spec) => `Delete ${article(spec.noun)}`
};

const annotations: Record<Action, PlatformToolDefinition['annotations']> = {
    list: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    get: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    create: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    patch: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    delete: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false }
};

function outputSchema(spec: KindTools, action: Action): z.ZodObject | null {
    if (action === 'list') {
        return listOutput(spec.item ?? z.record(z.string(), z.unknown()) as unknown as z.ZodObject);
    }

    return action === 'delete' ? null : spec.item ?? null;
}

/** The five tools of every kind, offered or not; a kind whose rows are missing from the tables stops the boot. */
export function platformTools(kinds: readonly KindTools[], rows: readonly RouteRow[]): PlatformToolDefinition[] {
    const byId = new Map(rows.map((row) => [row.id, row]));
    return kinds.flatMap((spec) => ACTIONS.map((action) => {
        const row = byId.get(spec.routes[action]);
        Hoek.assert(row, 'The', spec.kind, 'tools name route', spec.routes[action], 'which is in no route table');
        const params = pathParams(row.path);
        Hoek.assert(params.length === (action === 'list' || action === 'create' ? 0 : 1), 'Route', row.id, 'does not fit the', action, 'tool');
        return {
            name: `${spec.kind}_${action}`,
            group: spec.kind,
            title: capital(titles[action](spec)),
            description: description(spec, action, row),
            inputSchema: inputSchema(spec, action),
            ...(outputSchema(spec, action) ? { outputSchema: outputSchema(spec, action)! } : {}),
            annotations: annotations[action],
            kind: spec.kind,
            action,
            offered: spec.offered,
            row,
            key: spec.key,
            noun: spec.noun,
            plural: spec.plural
        };
    }));
}

export function apiRequest(tool: PlatformToolDefinition, args: Record<string, unknown>, authorization: string, forwardedFor: string | null = null, projectPin: string | null = null): ApiRequest {
    const { [tool.key]: key, ...rest } = args;
    const path = tool.row.path.replace(/{\w+}/, () => encodeURIComponent(String(key)));
    const method = tool.row.method as ApiRequest['method'];
    const caller = { authorization, ...(forwardedFor ? { forwardedFor } : {}), ...(projectPin ? { projectPin } : {}) };
    switch (tool.action) {
        case 'list': return { method, path, query: args as ApiRequest['query'], ...caller };
        case 'create': return { method, path, body: args, ...caller };
        case 'patch': return { method, path, body: rest, ...caller };
        default: return { method, path, ...caller };
    }
}

function nextCursor(link: string | null): string | undefined {
    const next = link && /<([^>]+)>\s*;\s*rel="next"/.exec(link)?.[1];
    return next ? new URL(next, 'http://api.invalid').searchParams.get('cursor') ?? undefined : undefined;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What names an item in a sentence: its name, else its id. */
const nameOf = (item: Record<string, unknown>): string => [item.name, item.id].find((value): value is string | number => typeof value === 'string' || typeof value === 'number')?.toString() ?? '';

/** `shop (app_..., live)`: what names an item, and its state or the caller's role. */
function itemLine(item: Record<string, unknown>): string {
    const details = [item.name !== undefined ? item.id : undefined, item.status, item.role].filter((value) => typeof value === 'string');
    return `${nameOf(item) || 'item'}${details.length ? ` (${details.join(', ')})` : ''}`;
}

export function toolResult(tool: PlatformToolDefinition, args: Record<string, unknown>, response: ApiResponse): CallToolResult {
    const { status, body } = response;
    if (status >= 300) {
        const error = isObject(body) ? body : { statusCode: status };
        const reason = [error.error, error.message].filter(Boolean).join(': ');
        return failure(`${tool.name} was refused by the API with ${status}${reason ? ` ${reason}` : ''}\n\n${JSON.stringify(error)}`);
    }

    const unexpected = () => failure(`${tool.name}: the API answered ${status} with an unexpected body\n\n${JSON.stringify(body)}`);
    if (tool.action === 'list') {
        if (!Array.isArray(body)) {
            return unexpected();
        }

        // The REST JSON is the structured content; the text is a one-line summary, then the same JSON, so a client
        // that reads text only loses no field (as the MCP specification recommends for structured results).
        const cursor = nextCursor(response.link);
        const count = `${body.length} ${body.length === 1 ? tool.noun : tool.plural}`;
        const names = body.filter(isObject).slice(0, 10).map(itemLine).join(', ');
        const structured = { items: body, ...(cursor ? { nextCursor: cursor } : {}) };
        // The same JSON as a text, built around the page's own when the API client kept it (the list's largest part,
        // not serialized again).
        const json = response.json ? `{"items":${response.json}${cursor ? `,"nextCursor":${JSON.stringify(cursor)}` : ''}}` : undefined;
        return success(`${count}${names ? `: ${names}${body.length > 10 ? ', ...' : ''}` : ''}${cursor ? '; more remain: pass nextCursor as cursor' : ''}.`, structured, json);
    }

    if (tool.action === 'delete') {
        return success(`Deleted ${tool.noun} ${String(args[tool.key])}.`, isObject(body) ? body : { deleted: true, [tool.key]: args[tool.key] });
    }

    if (!isObject(body)) {
        return unexpected();
    }

    const verb = { get: 'The', create: 'Created', patch: 'Changed' }[tool.action];
    return success(`${verb} ${tool.noun} ${nameOf(body)}.`, body);
}

/**
 * The definitions as tools acting on this deployment's API only, each call with the Authorization header of the
 * request it belongs to (the context). Built once at start; a call without a credential is refused without asking.
 */
export function platformToolsOn(definitions: readonly PlatformToolDefinition[], api: ApiClient): Array<Tool & PlatformToolDefinition> {
    return definitions.map((definition) => ({
        ...definition,
        handler: async (args, { authorization, forwardedFor, projectPin }) => {
            if (!authorization) {
                return failure(`${definition.name} needs a credential: platform tools act as their caller`);
            }

            try {
                return toolResult(definition, args, await api.request(apiRequest(definition, args, authorization, forwardedFor ?? null, projectPin ?? null)));
            }
            catch (err) {
                if (err instanceof ApiUnreachableError) {
                    return failure(err.message);
                }

                throw err;
            }
        }
    }));
}
