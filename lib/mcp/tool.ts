import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

// A tool is data (name, schemas, annotations, the group it is selected by) plus a handler. Definitions are built
// once at start; each request registers the selected ones on its own McpServer.

export interface ToolDefinition {
    name: string;
    group: string;                                              // selected by MCP_ALLOWED_TOOLS / X-MCP-Tools with its siblings
    title: string;
    description: string;
    inputSchema: z.ZodObject;
    outputSchema?: z.ZodObject;
    annotations: ToolAnnotations & { readOnlyHint: boolean };
}

export type ToolHandler = (args: Record<string, unknown>) => Promise<CallToolResult>;

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

/** A new McpServer offering exactly these tools (an empty selection still answers tools/list and tools/call). */
export function buildServer(info: ServerInfo, tools: readonly Tool[]): McpServer {
    const server = new McpServer({ name: info.name, version: info.version }, { instructions: info.instructions, jsonSchemaValidator: validator });
    for (const tool of tools) {
        server.registerTool(tool.name, {
            title: tool.title,
            description: tool.description,
            inputSchema: tool.inputSchema,
            ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
            annotations: { title: tool.title, ...tool.annotations }
        }, (args: Record<string, unknown>) => tool.handler(args));
    }

    if (!tools.length) {
        server.server.registerCapabilities({ tools: {} });
        server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
        server.server.setRequestHandler(CallToolRequestSchema, (request) => failure(`Tool ${request.params.name} not found: no tool is offered to this request`));
    }

    return server;
}

/** A result with the JSON as structured content and, for clients that read text only, a summary plus the same JSON. */
export function success(summary: string, structured: Record<string, unknown>): CallToolResult {
    return { content: [{ type: 'text', text: `${summary}\n\n${JSON.stringify(structured)}` }], structuredContent: structured };
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
