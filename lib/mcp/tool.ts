import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool as ListedTool, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

import { compactSchema } from './compact-schema';

// A tool is data (name, schemas, annotations, the group it is selected by) plus a handler. Tools are built once at
// start; each request registers the selected ones on its own Server, with what that request's calls act as (the
// caller's credential) passed to the handlers as a context, so nothing is bound per request.

export interface ToolDefinition {
    name: string;
    group: string;                                              // selected by MCP_ALLOWED_TOOLS / X-MCP-Tools with its siblings
    title: string;
    description: string;
    inputSchema: z.ZodObject;
    outputSchema?: z.ZodObject;
    annotations: ToolAnnotations & { readOnlyHint: boolean };
}

/** What one request's tool calls act with: the caller's Authorization header (null where the tools need none) and address, and
 * where a tool's unexpected failure is reported (the server's log: the caller is told only that the tool failed). */
export interface CallContext {
    authorization: string | null;
    forwardedFor?: string | null;                               // the caller's address, passed on with the credential
    projectPin?: string | null;                                 // the one project every call may reach (X-MCP-Project, MCP_PROJECT_ID)
    fault?: (error: Error) => void;
}

export type ToolHandler = (args: Record<string, unknown>, context: CallContext) => Promise<CallToolResult>;

export interface Tool extends ToolDefinition {
    handler: ToolHandler;
}

export interface ServerInfo {
    name: string;
    version: string;
    instructions: string;
}

// Built once: the SDK would otherwise compile a JSON Schema validator for every server, a third of a stateless request.
const validator = new AjvJsonSchemaValidator();

// What tools/list shows of a tool, computed once per definition: the high-level McpServer converts every zod schema
// to JSON Schema on every tools/list and re-validates every result against its output schema, which cost more than
// the REST call a tool makes. The low-level Server below serves these precomputed listings instead.
const listings = new WeakMap<z.ZodObject, Map<string, ListedTool>>();

/** What tools/list shows of a tool (its input schema compacted, see compact-schema.ts). */
export function listing(tool: ToolDefinition): ListedTool {
    let byName = listings.get(tool.inputSchema);
    if (!byName) {
        byName = new Map();
        listings.set(tool.inputSchema, byName);
    }

    let listed = byName.get(tool.name);
    if (!listed) {
        listed = {
            name: tool.name,
            title: tool.title,
            description: tool.description,
            inputSchema: compactSchema(z.toJSONSchema(tool.inputSchema, { io: 'input' })) as ListedTool['inputSchema'],
            ...(tool.outputSchema ? { outputSchema: z.toJSONSchema(tool.outputSchema, { io: 'output' }) as ListedTool['outputSchema'] } : {}),
            annotations: { title: tool.title, ...tool.annotations }
        };
        byName.set(tool.name, listed);
    }

    return listed;
}

/** An MCP server offering exactly these tools (an empty selection still answers tools/list and tools/call). */
export function buildServer(info: ServerInfo, tools: readonly Tool[], context: CallContext = { authorization: null }): Server {
    const server = new Server({ name: info.name, version: info.version }, { capabilities: { tools: {} }, instructions: info.instructions, jsonSchemaValidator: validator });
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(listing) }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => {
        const tool = byName.get(request.params.name);
        if (!tool) {
            return failure(tools.length ? `Tool ${request.params.name} not found` : `Tool ${request.params.name} not found: no tool is offered to this request`);
        }

        const args = tool.inputSchema.safeParse(request.params.arguments ?? {});
        if (!args.success) {
            const problems = args.error.issues.map((issue) => `${issue.path.join('.') || 'arguments'}: ${issue.message}`).join('; ');
            return failure(`Input validation error: Invalid arguments for tool ${tool.name}: ${problems}`);
        }

        try {
            return await tool.handler(args.data, context);
        }
        catch (err) {
            // A handler answers what the caller can act on itself (failure()); what it throws is the server's own.
            context.fault?.(err instanceof Error ? err : new Error(String(err)));
            return failure(`${tool.name} failed on the server's side; please try again later.`);
        }
    });

    return server;
}

/**
 * A result with the JSON as structured content and, for clients that read text only, a summary plus the same JSON:
 * `json` when the caller already holds that text, else serialized here.
 */
export function success(summary: string, structured: Record<string, unknown>, json = JSON.stringify(structured)): CallToolResult {
    return { content: [{ type: 'text', text: `${summary}\n\n${json}` }], structuredContent: structured };
}

/** The OpenAI retrieval shape: exactly one text item holding the JSON, and the same object as structured content. */
export function jsonResult(structured: Record<string, unknown>): CallToolResult {
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

export function failure(text: string): CallToolResult {
    return { content: [{ type: 'text', text }], isError: true };
}

/** The arguments of a definition as documentation rows, read from the JSON Schema clients see. */
export function describeArguments(definition: ToolDefinition): Array<{ name: string; required: boolean; description: string }> {
    const schema = z.toJSONSchema(definition.inputSchema, { io: 'input' }) as { properties?: Record<string, { description?: string }>; required?: string[]; additionalProperties?: unknown };
    const rows = Object.entries(schema.properties ?? {}).map(([name, property]) => ({
        name,
        required: schema.required?.includes(name) ?? false,
        description: property.description ?? ''
    }));
    if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
        rows.push({ name: '...', required: false, description: 'Further fields of the REST body, passed through unchanged.' });
    }

    return rows;
}
