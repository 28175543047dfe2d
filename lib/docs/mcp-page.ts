import type { DeployToolDefinition } from '../mcp/deploy-tool';
import type { PlatformToolDefinition } from '../mcp/platform-tools';
import { describeArguments, type ToolDefinition } from '../mcp/tool';

// The tool list of docs/mcp.md, written from the tool definitions: what a client is offered is what the page says.
// The page's prose is edited by hand; only the block between the markers is generated (`npm run docs`).
export const TOOLS_START = '<!-- tools:start: generated from the tool definitions by `npm run docs`; edit those, not this block -->';
export const TOOLS_END = '<!-- tools:end -->';

function hints(tool: ToolDefinition): string {
    const { readOnlyHint, destructiveHint, idempotentHint } = tool.annotations;
    return [readOnlyHint ? 'read-only' : destructiveHint ? 'destructive' : 'writes', ...(!readOnlyHint && idempotentHint ? ['idempotent'] : [])].join(', ');
}

function entry(tool: ToolDefinition, rest?: string): string[] {
    const args = describeArguments(tool);
    return [
        `#### \`${tool.name}\``,
        '',
        `${rest ? `\`${rest}\` · ` : ''}${hints(tool)}`,
        '',
        tool.description,
        '',
        ...(args.length
            ? args.map((arg) => `- \`${arg.name}\`${arg.required ? ' (required)' : ''}: ${arg.description}`)
            : ['No arguments.']),
        ''
    ];
}

export function renderToolList(docs: readonly ToolDefinition[], platform: readonly PlatformToolDefinition[], deploy: DeployToolDefinition | null = null): string {
    const kinds = [...new Set(platform.map((tool) => tool.kind))];
    const offered = kinds.filter((kind) => platform.some((tool) => tool.kind === kind && tool.offered));
    const out = [
        TOOLS_START, '',
        `Platform tools offered by this version: ${offered.map((kind) => `\`${kind}\``).join(', ') || 'none'}. The other kinds are defined below and offered once this version serves their routes.`, '',
        '### Documentation tools (`POST /mcp/docs`)', ''
    ];
    for (const tool of docs) {
        out.push(...entry(tool));
    }

    for (const kind of kinds) {
        const tools = platform.filter((tool) => tool.kind === kind);
        out.push(`### ${tools[0].plural[0].toUpperCase()}${tools[0].plural.slice(1)} (\`POST /mcp\`)${offered.includes(kind) ? '' : ': defined, offered once this version serves their routes'}`, '');
        for (const tool of tools) {
            out.push(...entry(tool, `${tool.row.method} ${tool.row.path}`));
        }
    }

    if (deploy) {
        out.push('### Deploy (`POST /mcp`)', '');
        out.push(...entry(deploy, Object.values(deploy.routes).map((row) => `${row.method} ${row.path}`).join('`, `')));
    }

    out.push(TOOLS_END);
    return out.join('\n');
}

/** The page with its generated block replaced; a page without both markers is an error naming them. */
export function withToolList(page: string, block: string): string {
    const start = page.indexOf(TOOLS_START);
    const end = page.indexOf(TOOLS_END);
    if (start < 0 || end < start) {
        throw new Error(`docs/mcp.md needs the markers ${TOOLS_START} and ${TOOLS_END} around its tool list`);
    }

    return `${page.slice(0, start)}${block}${page.slice(end + TOOLS_END.length)}`;
}
